package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
)

// Collection is a named set of files and folders indexed for the assistant
// (SPEC §11).
type Collection struct {
	ID    string
	Name  string
	Paths []string
	// Cancelled: the user stopped its indexing; it is not resumed (nor are
	// changes picked up) until it is indexed again.
	Cancelled bool
	// Error says why the collection could not be indexed at all ("" = none).
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Knowledge file statuses.
const (
	FilePending = "pending"
	FileIndexed = "indexed"
	FileError   = "error"
)

// KnowledgeFile is what the index knows of one file of a collection.
type KnowledgeFile struct {
	Path    string
	Size    int64
	MtimeNs int64
	Hash    string
	Status  string
	Error   string
}

// Passage is one passage of a file, in the file's order.
type Passage struct {
	Locator string
	Text    string
}

// IndexedFile is a file read (or failed) by the indexer. With Unchanged, only
// its size and time are updated (its content hash matched); with Err it is
// listed with that reason and its passages are dropped; otherwise Passages
// replace the file's passages.
type IndexedFile struct {
	Path      string
	Size      int64
	MtimeNs   int64
	Hash      string
	Passages  []Passage
	Err       string
	Unchanged bool
}

// FileProblem is a file that could not be indexed, with the reason.
type FileProblem struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// KnowledgeCounts are a collection's figures.
type KnowledgeCounts struct {
	Files        int
	IndexedFiles int
	Chunks       int
	Errors       []FileProblem
}

// maxListedProblems bounds the errors a collection lists.
const maxListedProblems = 200

// ChunkText is a passage waiting for its vector.
type ChunkText struct {
	Seq     int64
	Locator string
	Text    string
}

// Embedding is a passage's stored vector: int8 values after a float32
// scale, and one sign bit a dimension.
type Embedding struct {
	Seq    int64
	Vector []byte
	Bits   []byte
}

// ChunkHit is a passage found by a search.
type ChunkHit struct {
	Seq          int64
	CollectionID string
	Path         string
	Locator      string
	Text         string
}

const collectionColumns = "id, name, paths, cancelled, error, created_at, updated_at"

// CreateCollection stores a new collection.
func (s *Store) CreateCollection(ctx context.Context, name string, paths []string) (*Collection, error) {
	t := now()
	c := &Collection{ID: uuid.NewString(), Name: name, Paths: paths, CreatedAt: t, UpdatedAt: t}
	b, err := json.Marshal(paths)
	if err != nil {
		return nil, fmt.Errorf("create collection: %w", err)
	}
	if _, err := s.writer.ExecContext(ctx,
		`INSERT INTO knowledge_collections (id, name, paths, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
		c.ID, name, string(b), formatTime(t), formatTime(t)); err != nil {
		return nil, fmt.Errorf("create collection: %w", err)
	}
	return c, nil
}

// Collection loads one collection; chat.ErrNotFound when missing.
func (s *Store) Collection(ctx context.Context, id string) (*Collection, error) {
	c, err := scanCollection(s.readers.QueryRowContext(ctx, `SELECT `+collectionColumns+` FROM knowledge_collections WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load collection %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load collection %s: %w", id, err)
	}
	return &c, nil
}

// Collections loads every collection, oldest first.
func (s *Store) Collections(ctx context.Context) ([]Collection, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT `+collectionColumns+` FROM knowledge_collections ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("load collections: %w", err)
	}
	defer rows.Close()
	var out []Collection
	for rows.Next() {
		c, err := scanCollection(rows)
		if err != nil {
			return nil, fmt.Errorf("load collections: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func scanCollection(sc scanner) (Collection, error) {
	var c Collection
	var paths, created, updated string
	var errText sql.NullString
	if err := sc.Scan(&c.ID, &c.Name, &paths, &c.Cancelled, &errText, &created, &updated); err != nil {
		return c, err
	}
	c.Error = errText.String
	if err := json.Unmarshal([]byte(paths), &c.Paths); err != nil {
		return c, fmt.Errorf("collection %s: decode paths: %w", c.ID, err)
	}
	var err error
	if c.CreatedAt, err = parseTime(created); err != nil {
		return c, err
	}
	c.UpdatedAt, err = parseTime(updated)
	return c, err
}

// UpdateCollection saves c's name, paths, cancelled flag and error.
func (s *Store) UpdateCollection(ctx context.Context, c *Collection) error {
	b, err := json.Marshal(c.Paths)
	if err != nil {
		return fmt.Errorf("update collection %s: %w", c.ID, err)
	}
	c.UpdatedAt = now()
	res, err := s.writer.ExecContext(ctx,
		`UPDATE knowledge_collections SET name = ?, paths = ?, cancelled = ?, error = ?, updated_at = ? WHERE id = ?`,
		c.Name, string(b), c.Cancelled, nullString(c.Error), formatTime(c.UpdatedAt), c.ID)
	return checkUpdated(res, err, "update collection", c.ID)
}

// KnowledgeCounts returns a collection's files, indexed files, passages and
// the files that failed (at most maxListedProblems, by path).
func (s *Store) KnowledgeCounts(ctx context.Context, id string) (KnowledgeCounts, error) {
	var k KnowledgeCounts
	err := s.readers.QueryRowContext(ctx,
		`SELECT count(*), count(*) FILTER (WHERE status = 'indexed'),
		        (SELECT count(*) FROM knowledge_chunks c JOIN knowledge_files f ON f.seq = c.file_seq WHERE f.collection_id = ?1)
		 FROM knowledge_files WHERE collection_id = ?1`, id).Scan(&k.Files, &k.IndexedFiles, &k.Chunks)
	if err != nil {
		return k, fmt.Errorf("count collection %s: %w", id, err)
	}
	rows, err := s.readers.QueryContext(ctx,
		`SELECT path, coalesce(error, '') FROM knowledge_files WHERE collection_id = ? AND status = 'error' ORDER BY path LIMIT ?`,
		id, maxListedProblems)
	if err != nil {
		return k, fmt.Errorf("list errors of collection %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p FileProblem
		if err := rows.Scan(&p.Path, &p.Error); err != nil {
			return k, err
		}
		k.Errors = append(k.Errors, p)
	}
	return k, rows.Err()
}

// KnowledgeFiles lists what the index knows of a collection's files.
func (s *Store) KnowledgeFiles(ctx context.Context, collectionID string) ([]KnowledgeFile, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT path, size, mtime_ns, hash, status, coalesce(error, '') FROM knowledge_files WHERE collection_id = ? ORDER BY path`, collectionID)
	if err != nil {
		return nil, fmt.Errorf("list files of collection %s: %w", collectionID, err)
	}
	defer rows.Close()
	var out []KnowledgeFile
	for rows.Next() {
		var f KnowledgeFile
		if err := rows.Scan(&f.Path, &f.Size, &f.MtimeNs, &f.Hash, &f.Status, &f.Error); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// AddPendingFiles records files found to be new or changed: they count in
// the collection's files and wait for the indexer (their passages stay
// searchable until replaced). Stored in short transactions.
func (s *Store) AddPendingFiles(ctx context.Context, collectionID string, files []KnowledgeFile) error {
	return s.runShortTxs(ctx, func(b *shortTxs) error {
		for _, f := range files {
			if _, err := b.exec(
				`INSERT INTO knowledge_files (collection_id, path, size, mtime_ns, status) VALUES (?, ?, ?, ?, 'pending')
				 ON CONFLICT (collection_id, path) DO UPDATE SET status = 'pending', error = NULL`,
				collectionID, f.Path, f.Size, f.MtimeNs); err != nil {
				return fmt.Errorf("add file %s to collection %s: %w", f.Path, collectionID, err)
			}
			if err := b.commitIfFull(); err != nil {
				return err
			}
		}
		return nil
	})
}

// SaveIndexedFiles stores what the indexer made of files: each file's row,
// and its passages replacing the old ones, in short transactions. A file
// split between two transactions stays pending until its last passage is
// stored (a crash meanwhile leaves it to be read again).
func (s *Store) SaveIndexedFiles(ctx context.Context, collectionID string, files []IndexedFile) error {
	return s.SaveIndexedFilesBetween(ctx, collectionID, files, nil)
}

// SaveIndexedFilesBetween is SaveIndexedFiles calling between (when not
// nil) after each of its short transactions but the last has committed,
// with no transaction open: the indexer waits there while the user's run
// works (issue #42), so a batch under way when the run starts stops at its
// next commit instead of taking a core for the rest of the batch.
func (s *Store) SaveIndexedFilesBetween(ctx context.Context, collectionID string, files []IndexedFile, between func()) error {
	return s.runShortTxsBetween(ctx, between, func(b *shortTxs) error {
		for _, f := range files {
			if err := b.saveIndexedFile(collectionID, f); err != nil {
				return fmt.Errorf("save file %s of collection %s: %w", f.Path, collectionID, err)
			}
			if err := b.commitIfFull(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *shortTxs) saveIndexedFile(collectionID string, f IndexedFile) error {
	status, errText := FileIndexed, ""
	if f.Err != "" {
		status, errText = FileError, f.Err
	}
	if f.Unchanged {
		_, err := b.exec(
			`UPDATE knowledge_files SET size = ?, mtime_ns = ?, hash = ?, status = ?, error = ? WHERE collection_id = ? AND path = ?`,
			f.Size, f.MtimeNs, f.Hash, status, nullString(errText), collectionID, f.Path)
		return err
	}
	seqs, err := b.int64s(
		`INSERT INTO knowledge_files (collection_id, path, size, mtime_ns, status) VALUES (?, ?, ?, ?, 'pending')
		 ON CONFLICT (collection_id, path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
		     hash = '', status = 'pending', error = NULL
		 RETURNING seq`,
		collectionID, f.Path, f.Size, f.MtimeNs)
	if err != nil {
		return err
	}
	seq := seqs[0]
	b.rows++
	b.changed++
	if err := b.deleteFilePassages(seq); err != nil {
		return err
	}
	for i, p := range f.Passages {
		if err := b.commitIfFull(); err != nil {
			return err
		}
		if err := b.insertPassage(seq, i, p); err != nil {
			return err
		}
	}
	_, err = b.exec(`UPDATE knowledge_files SET hash = ?, status = ?, error = ? WHERE seq = ?`,
		f.Hash, status, nullString(errText), seq)
	return err
}

// DeleteKnowledgeFiles removes files (and their passages) from a
// collection's index, in short transactions.
func (s *Store) DeleteKnowledgeFiles(ctx context.Context, collectionID string, paths []string) error {
	return s.runShortTxs(ctx, func(b *shortTxs) error {
		for _, p := range paths {
			seqs, err := b.int64s(`SELECT seq FROM knowledge_files WHERE collection_id = ? AND path = ?`, collectionID, p)
			if err != nil {
				return fmt.Errorf("remove file %s from collection %s: %w", p, collectionID, err)
			}
			for _, seq := range seqs {
				if err := b.deleteKnowledgeFile(seq); err != nil {
					return fmt.Errorf("remove file %s from collection %s: %w", p, collectionID, err)
				}
			}
			if err := b.commitIfFull(); err != nil {
				return err
			}
		}
		return nil
	})
}

// ChunksToEmbed returns up to limit passages after afterSeq, in order, whose
// vector is missing or was made by another model than model (not those of
// a deleted collection, waiting to be purged).
func (s *Store) ChunksToEmbed(ctx context.Context, model string, afterSeq int64, limit int) ([]ChunkText, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT c.seq, c.locator, c.text FROM knowledge_chunks c
		 WHERE c.seq > ? AND (c.embedding_model IS NULL OR c.embedding_model <> ?)
		   AND EXISTS (SELECT 1 FROM knowledge_files f JOIN knowledge_collections k ON k.id = f.collection_id WHERE f.seq = c.file_seq)
		 ORDER BY c.seq LIMIT ?`, afterSeq, model, limit)
	if err != nil {
		return nil, fmt.Errorf("find passages to embed: %w", err)
	}
	defer rows.Close()
	var out []ChunkText
	for rows.Next() {
		var c ChunkText
		if err := rows.Scan(&c.Seq, &c.Locator, &c.Text); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SaveEmbeddings stores passages' vectors made by model (passages deleted
// meanwhile are skipped).
func (s *Store) SaveEmbeddings(ctx context.Context, model string, es []Embedding) error {
	if len(es) == 0 {
		return nil
	}
	return s.withTx(ctx, func(tx *sql.Tx) error {
		for _, e := range es {
			if _, err := tx.ExecContext(ctx,
				`UPDATE knowledge_chunks SET embedding_model = ?, embedding = ?, embedding_bits = ? WHERE seq = ?`,
				model, e.Vector, e.Bits, e.Seq); err != nil {
				return fmt.Errorf("save vector of passage %d: %w", e.Seq, err)
			}
		}
		return nil
	})
}

// inClause is "(?, ?, ...)" for n values.
func inClause(n int) string { return "(?" + strings.Repeat(", ?", n-1) + ")" }

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// keywordOversample: how many more passages the index ranks than a keyword
// search returns, for the collections not searched.
const keywordOversample = 8

// KeywordSearch returns the passages of the collections matching the FTS5
// expression match, best first (BM25; heading words weigh twice).
func (s *Store) KeywordSearch(ctx context.Context, collections []string, match string, limit int) ([]int64, error) {
	if len(collections) == 0 || match == "" {
		return nil, nil
	}
	// The ranking runs on the index alone (FTS5 orders by bm25 without
	// reading the passages); the collection filter then reads only the
	// best few, taken deep enough for several collections to share them.
	args := append([]any{match, limit * keywordOversample}, anyStrings(collections)...)
	args = append(args, limit)
	out, err := column[int64](s.readers.QueryContext(ctx,
		`WITH ranked AS (
		     SELECT rowid, bm25(knowledge_search, 1.0, 2.0) AS score FROM knowledge_search
		     WHERE knowledge_search MATCH ? ORDER BY score LIMIT ?)
		 SELECT c.seq FROM ranked
		 JOIN knowledge_chunks c ON c.seq = ranked.rowid
		 JOIN knowledge_files f ON f.seq = c.file_seq
		 WHERE f.collection_id IN `+inClause(len(collections))+`
		 ORDER BY ranked.score LIMIT ?`, args...))
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return out, nil
}

// CollectionVectors calls fn with the stored vector and sign bits of every
// passage of the collection embedded by model, in seq order (the slices are
// reused: fn copies what it keeps).
func (s *Store) CollectionVectors(ctx context.Context, collectionID, model string, fn func(seq int64, vector, bits []byte)) error {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT c.seq, c.embedding, c.embedding_bits FROM knowledge_chunks c JOIN knowledge_files f ON f.seq = c.file_seq
		 WHERE f.collection_id = ? AND c.embedding_model = ? AND c.embedding IS NOT NULL AND c.embedding_bits IS NOT NULL
		 ORDER BY c.seq`, collectionID, model)
	if err != nil {
		return fmt.Errorf("load vectors of collection %s: %w", collectionID, err)
	}
	defer rows.Close()
	var vector, bits sql.RawBytes
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq, &vector, &bits); err != nil {
			return fmt.Errorf("load vectors of collection %s: %w", collectionID, err)
		}
		fn(seq, vector, bits)
	}
	return rows.Err()
}

// KeywordMatches counts, for each FTS5 expression, the passages of every
// collection it matches (FTS5 reads the terms' doclists, not the passages).
func (s *Store) KeywordMatches(ctx context.Context, exprs []string) ([]int, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	cols := make([]string, len(exprs))
	args := make([]any, len(exprs))
	for i, e := range exprs {
		cols[i] = `(SELECT count(*) FROM knowledge_search WHERE knowledge_search MATCH ?)`
		args[i] = e
	}
	out := make([]int, len(exprs))
	dest := make([]any, len(exprs))
	for i := range out {
		dest[i] = &out[i]
	}
	if err := s.readers.QueryRowContext(ctx, `SELECT `+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return nil, fmt.Errorf("count keyword matches: %w", err)
	}
	return out, nil
}

// maxInArgs bounds the values of one IN list.
const maxInArgs = 500

func anyInts(ns []int64) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

// Chunks returns passages with their file, by seq (missing ones are left out).
func (s *Store) Chunks(ctx context.Context, seqs []int64) (map[int64]ChunkHit, error) {
	out := make(map[int64]ChunkHit, len(seqs))
	for start := 0; start < len(seqs); start += maxInArgs {
		part := seqs[start:min(start+maxInArgs, len(seqs))]
		rows, err := s.readers.QueryContext(ctx,
			`SELECT c.seq, f.collection_id, f.path, c.locator, c.text FROM knowledge_chunks c
			 JOIN knowledge_files f ON f.seq = c.file_seq WHERE c.seq IN `+inClause(len(part)), anyInts(part)...)
		if err != nil {
			return nil, fmt.Errorf("load passages: %w", err)
		}
		for rows.Next() {
			var h ChunkHit
			if err := rows.Scan(&h.Seq, &h.CollectionID, &h.Path, &h.Locator, &h.Text); err != nil {
				rows.Close()
				return nil, err
			}
			out[h.Seq] = h
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CountWithVector counts a collection's passages that have a vector of model.
func (s *Store) CountWithVector(ctx context.Context, collectionID, model string) (int, error) {
	var n int
	err := s.readers.QueryRowContext(ctx,
		`SELECT count(*) FROM knowledge_chunks c JOIN knowledge_files f ON f.seq = c.file_seq
		 WHERE f.collection_id = ? AND c.embedding_model = ?`, collectionID, model).Scan(&n)
	return n, err
}

// CountWithoutVector counts a collection's passages without a vector of model.
func (s *Store) CountWithoutVector(ctx context.Context, collectionID, model string) (int, error) {
	var n int
	err := s.readers.QueryRowContext(ctx,
		`SELECT count(*) FROM knowledge_chunks c JOIN knowledge_files f ON f.seq = c.file_seq
		 WHERE f.collection_id = ? AND (c.embedding_model IS NULL OR c.embedding_model <> ?)`, collectionID, model).Scan(&n)
	return n, err
}

// HasKnowledgeFile tells whether a collection holds the file at path.
func (s *Store) HasKnowledgeFile(ctx context.Context, path string) (bool, error) {
	var n int
	err := s.readers.QueryRowContext(ctx, `SELECT count(*) FROM knowledge_files WHERE path = ?`, path).Scan(&n)
	return n > 0, err
}
