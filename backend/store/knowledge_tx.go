package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// SQLite has one writer: while the knowledge index holds the write lock the
// chat cannot store a message or a card (and the store's single writer
// connection makes such writes queue behind it). So long index writes (a
// batch of files, a folder gone, a collection deleted) are cut into short
// transactions: each commits once it has changed maxTxRows rows or has
// lasted maxTxTime, whichever comes first, and a chat write waits at most
// one of them (the pool hands the connection to a waiting writer on commit).
const (
	maxTxRows = 256
	// 5 ms, not 20: a chat write while 20,000 files index waited p50 3 ms and
	// p95 11-13 ms instead of 7 and 23 (BenchmarkChatWriteWhileIndexing20k);
	// the index's throughput did not change (commits are cheap in WAL mode).
	maxTxTime = 5 * time.Millisecond
	// purgeStep is how many passages one statement removes.
	purgeStep = 64
)

// shortTxs runs one long piece of work as short write transactions: a
// transaction begins at the first statement and ends at the next
// commitIfFull once it is full. Work between two commitIfFull calls is
// atomic; callers place them where a reader may see the work half done.
type shortTxs struct {
	s     *Store
	ctx   context.Context
	tx    *sql.Tx
	rows  int
	begun time.Time
	// changed counts the rows the open transaction really changed: it is
	// never full before one was, so each transaction makes progress
	// however slow the machine (a busy one could spend the whole time
	// bound on a SELECT and leave having removed nothing, again and again).
	changed int
	// between, when set, runs after each commit of a full transaction
	// (not the last one), with no transaction open.
	between func()
}

func (s *Store) shortTxs(ctx context.Context) *shortTxs { return &shortTxs{s: s, ctx: ctx} }

func (b *shortTxs) begin() error {
	if b.tx != nil {
		return nil
	}
	tx, err := b.s.writer.BeginTx(b.ctx, nil)
	if err != nil {
		return err
	}
	b.tx, b.rows, b.changed, b.begun = tx, 0, 0, time.Now()
	if b.s.txBegun != nil {
		b.s.txBegun()
	}
	return nil
}

// exec runs a statement in the open transaction (beginning one) and
// returns how many rows it changed.
func (b *shortTxs) exec(query string, args ...any) (int, error) {
	if err := b.begin(); err != nil {
		return 0, err
	}
	res, err := b.tx.ExecContext(b.ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	b.rows += int(max(n, 1))
	b.changed += int(n)
	return int(n), err
}

// insertPassage stores passage ord of a file and indexes it for search.
// The index is written here, not by a trigger: see migrations/0014.
func (b *shortTxs) insertPassage(fileSeq int64, ord int, p Passage) error {
	if err := b.begin(); err != nil {
		return err
	}
	res, err := b.tx.ExecContext(b.ctx, `INSERT INTO knowledge_chunks (file_seq, ord, locator, text) VALUES (?, ?, ?, ?)`,
		fileSeq, ord, p.Locator, p.Text)
	if err != nil {
		return err
	}
	b.rows++
	b.changed++
	chunkSeq, err := res.LastInsertId()
	if err == nil {
		_, err = b.tx.ExecContext(b.ctx, `INSERT INTO knowledge_search (rowid, text, locator) VALUES (?, ?, ?)`,
			chunkSeq, p.Text, p.Locator)
	}
	if err != nil {
		return fmt.Errorf("index passage %d of file %d for search: %w", ord, fileSeq, err)
	}
	return nil
}

// query runs a query in the open transaction (beginning one): it sees the
// transaction's own changes.
func (b *shortTxs) query(query string, args ...any) (*sql.Rows, error) {
	if err := b.begin(); err != nil {
		return nil, err
	}
	return b.tx.QueryContext(b.ctx, query, args...)
}

// full: the open transaction has changed a row and reached maxTxRows or
// the store's time bound.
func (b *shortTxs) full() bool {
	return b.tx != nil && b.changed > 0 && (b.rows >= maxTxRows || time.Since(b.begun) >= b.s.txTime)
}

// commitIfFull commits the open transaction when it is full.
func (b *shortTxs) commitIfFull() error {
	if !b.full() {
		return nil
	}
	if err := b.commit(); err != nil {
		return err
	}
	if b.between != nil {
		b.between()
	}
	return nil
}

// commit commits the open transaction, if any.
func (b *shortTxs) commit() error {
	if b.tx == nil {
		return nil
	}
	tx := b.tx
	b.tx = nil
	return tx.Commit()
}

// rollback drops the open transaction, if any (after an error).
func (b *shortTxs) rollback() {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx = nil
	}
}

// run runs fn on short transactions, committing what is left at the end;
// on an error the open transaction is rolled back (those committed stay).
func (s *Store) runShortTxs(ctx context.Context, fn func(b *shortTxs) error) error {
	return s.runShortTxsBetween(ctx, nil, fn)
}

// runShortTxsBetween is runShortTxs with between called after each commit
// but the last (see shortTxs.between).
func (s *Store) runShortTxsBetween(ctx context.Context, between func(), fn func(b *shortTxs) error) error {
	b := s.shortTxs(ctx)
	b.between = between
	if err := fn(b); err != nil {
		b.rollback()
		return err
	}
	return b.commit()
}

// deleteKnowledgeFile removes one file's passages, purgeStep at a time
// (committing between steps when the transaction is full), then its row.
func (b *shortTxs) deleteKnowledgeFile(seq int64) error {
	if err := b.deleteFilePassages(seq); err != nil {
		return err
	}
	_, err := b.exec(`DELETE FROM knowledge_files WHERE seq = ?`, seq)
	return err
}

// deleteFilePassages removes a file's passages, purgeStep at a time,
// committing between steps when the transaction is full.
func (b *shortTxs) deleteFilePassages(fileSeq int64) error {
	for {
		n, err := b.deletePassagesStep(fileSeq)
		if err != nil || n < purgeStep {
			return err
		}
		if err := b.commitIfFull(); err != nil {
			return err
		}
	}
}

// deletePassagesStep removes up to purgeStep of a file's passages.
func (b *shortTxs) deletePassagesStep(fileSeq int64) (int, error) {
	return b.exec(`DELETE FROM knowledge_chunks WHERE seq IN
		(SELECT seq FROM knowledge_chunks WHERE file_seq = ? LIMIT ?)`, fileSeq, purgeStep)
}

// DeleteCollection deletes a collection at once, in one short transaction:
// it is gone from the collections (and so from the API and from search)
// while its files' rows and passages are left for PurgeDeletedKnowledge to
// remove in short transactions. Without the cascade (foreign keys are off
// for this one statement on the writer connection) the delete stays short
// however big the collection. Rows whose collection is gone are what is
// left to purge, so a crash in the middle loses nothing: the next start
// purges the rest.
func (s *Store) DeleteCollection(ctx context.Context, id string) (err error) {
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("delete collection %s: %w", id, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return fmt.Errorf("delete collection %s: %w", id, err)
	}
	defer func() {
		// The connection serves every other write: it must not stay
		// without foreign keys. If they cannot be turned on again, the
		// pool drops it (a new one gets the settings of its DSN).
		if _, onErr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); onErr != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			err = errors.Join(err, fmt.Errorf("delete collection %s: foreign keys on again: %w", id, onErr))
		}
	}()
	res, err := conn.ExecContext(ctx, `DELETE FROM knowledge_collections WHERE id = ?`, id)
	return checkUpdated(res, err, "delete collection", id)
}

// orphanFiles selects the file rows of deleted collections.
const orphanFiles = `SELECT seq FROM knowledge_files WHERE collection_id NOT IN (SELECT id FROM knowledge_collections)`

// PurgeDeletedKnowledge removes part of what deleted collections left (file
// rows and passages), in one short transaction (maxTxRows rows or
// maxTxTime). more: it found something to remove, so more may be left.
// Callers loop until it finds nothing, other writers getting the database
// between two calls.
func (s *Store) PurgeDeletedKnowledge(ctx context.Context) (more bool, err error) {
	err = s.runShortTxs(ctx, func(b *shortTxs) error {
		for !b.full() {
			seqs, err := b.int64s(orphanFiles + ` LIMIT 16`)
			if err != nil {
				return err
			}
			if len(seqs) == 0 {
				more = false
				return nil
			}
			more = true
			for _, seq := range seqs {
				if b.full() {
					return nil
				}
				if err := b.deleteOrphanFile(seq); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("purge deleted collections: %w", err)
	}
	return more, nil
}

// deleteOrphanFile removes up to a transaction's worth of a deleted
// collection's file: its passages, then (once none is left) its row.
func (b *shortTxs) deleteOrphanFile(seq int64) error {
	for !b.full() {
		n, err := b.deletePassagesStep(seq)
		if err != nil {
			return err
		}
		if n < purgeStep {
			_, err := b.exec(`DELETE FROM knowledge_files WHERE seq = ?`, seq)
			return err
		}
	}
	return nil
}

// int64s runs a query of one integer column in the open transaction.
func (b *shortTxs) int64s(query string, args ...any) ([]int64, error) {
	return column[int64](b.query(query, args...))
}

// DeletedKnowledgeLeft counts the file rows and passages deleted
// collections left that are not purged yet.
func (s *Store) DeletedKnowledgeLeft(ctx context.Context) (files, passages int, err error) {
	err = s.readers.QueryRowContext(ctx,
		`SELECT count(*), (SELECT count(*) FROM knowledge_chunks WHERE file_seq IN (`+orphanFiles+`))
		 FROM knowledge_files WHERE seq IN (`+orphanFiles+`)`).Scan(&files, &passages)
	if err != nil {
		return 0, 0, fmt.Errorf("count what deleted collections left: %w", err)
	}
	return files, passages, nil
}
