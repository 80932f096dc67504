package store

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// WAL checkpoints run beside the writer, not inside its commits.
//
// SQLite's automatic checkpoint runs in the commit that takes the WAL past
// 1,000 pages: that commit copies the pages into the database file and syncs
// both files, and every write queued for the single writer connection waits
// for it. It was about 40 % of the time of appending messages in batches of
// ten (issue #17's bench: 7,800 msg/s with it, 12,900 without), and a send or
// a card stored now and then took those syncs on its way to the screen.
//
// So the writer's connections switch the automatic checkpoint off and count
// their commits (openWriter); after every checkpointEvery commits a
// goroutine runs a PASSIVE checkpoint on a connection of its own. A
// checkpoint and a write transaction do not wait for each other in WAL mode:
// the checkpoint copies what was committed before it began, and the writer
// goes on appending.
//
// The WAL starts over only when a write transaction begins with all of it
// copied. Under steady writing (an import, the knowledge index, the bench)
// commits land during every checkpoint beside the writer, and the WAL would
// grow without end (30,000 messages in batches of ten: 500 MB). So once a
// checkpoint leaves the WAL at restartFrames or more, the goroutine finishes
// it on the writer's own connection, as a write would wait for it: only what
// was committed during the checkpoint before is left to copy, and the next
// write starts the WAL over.
//
// Closing the store checkpoints what is left (the writer's connection is
// closed last, and SQLite's last close checkpoints and removes the WAL).
// Durability does not change: a commit is in the WAL either way, which is
// what survives a crash.

// checkpointEvery is how many commits the WAL collects before a checkpoint
// (SQLite's 1,000 pages: about 25 commits of ten messages, or a few hundred
// of a chat's).
const checkpointEvery = 32

// restartFrames is the WAL length (pages) after a checkpoint from which the
// checkpoint is finished on the writer's connection: SQLite's own threshold
// for its automatic checkpoint (4 MB of 4 KB pages). Steady writing then
// keeps the WAL file under about 16 MB.
const restartFrames = 1000

// checkpointTimeout bounds one checkpoint (a disk that stalls must not keep
// Close waiting forever).
const checkpointTimeout = time.Minute

// checkpointResult is what PRAGMA wal_checkpoint reports: whether it could
// not finish (busy), the WAL's frames, and how many of them are now in the
// database file.
type checkpointResult struct {
	Busy, Frames, Checkpointed int
	Err                        error
	// OnWriter: run on the writer's connection (the WAL had grown long).
	OnWriter bool
}

type checkpointer struct {
	db     *sql.DB // the checkpointer's own connection
	writer *sql.DB // the writer's pool (one connection)
	log    *slog.Logger
	// done, in tests, receives each checkpoint's result.
	done func(checkpointResult)

	pending atomic.Int64  // commits since the last checkpoint began
	kick    chan struct{} // one buffered: a checkpoint is due
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

func newCheckpointer(log *slog.Logger, done func(checkpointResult)) *checkpointer {
	return &checkpointer{log: log, done: done, kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// committed is the writer's commit hook: it runs inside SQLite's commit, so
// it only counts and, when a checkpoint is due, wakes the goroutine.
func (c *checkpointer) committed() {
	if c.pending.Add(1) < checkpointEvery {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default: // one is already due
	}
}

// start runs checkpoints on db (one connection that may write), and on
// writer when the WAL has grown long, until close.
func (c *checkpointer) start(db, writer *sql.DB) {
	c.db, c.writer = db, writer
	c.stopped.Add(1)
	go func() {
		defer c.stopped.Done()
		for {
			select {
			case <-c.stop:
				return
			case <-c.kick:
				c.pending.Store(0)
				if r := c.checkpoint(c.db, false); r.Err == nil && r.Frames >= restartFrames {
					c.checkpoint(c.writer, true)
				}
			}
		}
	}()
}

// checkpoint runs a PASSIVE checkpoint on db (onWriter: the writer's pool).
func (c *checkpointer) checkpoint(db *sql.DB, onWriter bool) checkpointResult {
	ctx, cancel := context.WithTimeout(context.Background(), checkpointTimeout)
	defer cancel()
	r := checkpointResult{OnWriter: onWriter}
	r.Err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&r.Busy, &r.Frames, &r.Checkpointed)
	if r.Err != nil {
		c.log.Warn("checkpoint the database's write-ahead log", "on_writer", onWriter, "err", r.Err)
	} else {
		c.log.Debug("write-ahead log checkpointed", "on_writer", onWriter, "frames", r.Frames, "checkpointed", r.Checkpointed, "busy", r.Busy)
	}
	if c.done != nil {
		c.done(r)
	}
	return r
}

// close stops the goroutine (after the checkpoint under way, if any) and
// closes its connection.
func (c *checkpointer) close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		c.stopped.Wait()
		err = c.db.Close()
	})
	return err
}
