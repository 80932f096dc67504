package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/update"
)

// updateLoop runs the automatic update checks: at start and daily, while
// the setting is on and the build has an install kind.
type updateLoop struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	stages sync.WaitGroup // downloads started by CheckUpdate
}

// UpdateStatus is GET /api/v1/update.
func (s *Service) UpdateStatus() update.Status {
	if s.opt.Updater == nil {
		return update.Status{Current: s.opt.Version, State: update.StateIdle, Auto: s.GetSettings().UpdateChecks == MemoryOn}
	}
	return s.opt.Updater.Status()
}

// CheckUpdate checks the feed now and stages what it offers in the
// background; the answer says the state after the check (refused and
// error included: they are states, not failures of the call).
func (s *Service) CheckUpdate(ctx context.Context) (update.Status, error) {
	u := s.opt.Updater
	if u == nil {
		return s.UpdateStatus(), nil
	}
	st, err := u.Check(ctx)
	if err != nil || st.Available == nil || st.State == update.StateReady {
		return u.Status(), nil
	}
	s.stageUpdate()
	return u.Status(), nil
}

func (s *Service) stageUpdate() {
	u := s.opt.Updater
	s.updates.stages.Add(1)
	go func() {
		defer s.updates.stages.Done()
		if _, err := u.Stage(context.Background()); err != nil {
			s.opt.Logger.Info("update not staged", "err", err)
		}
	}()
}

// ApplyUpdate installs the staged update (202), then restarts into it
// through OnUpdateApplied; with none ready it is a conflict (409).
func (s *Service) ApplyUpdate(ctx context.Context) (update.Status, error) {
	u := s.opt.Updater
	if u == nil {
		return s.UpdateStatus(), ErrNoUpdateReady
	}
	applied, err := u.Apply(ctx)
	if errors.Is(err, update.ErrNothingReady) {
		return u.Status(), ErrNoUpdateReady
	}
	if err != nil {
		return u.Status(), upstreamError("the update could not be installed: "+err.Error(), err)
	}
	if s.opt.OnUpdateApplied != nil {
		go s.opt.OnUpdateApplied(applied)
	}
	return u.Status(), nil
}

func (s *Service) startUpdateChecks() {
	if s.opt.Updater == nil {
		return
	}
	s.opt.Updater.OnChange(func(st update.Status) { s.ev.Emit(events.UpdateState, st) })
	on := s.GetSettings().UpdateChecks == MemoryOn
	s.opt.Updater.SetAuto(on)
	if on && s.opt.Updater.Kind() != update.KindNone {
		s.runUpdateLoop()
	}
}

// updateSettingChanged starts or stops the automatic checks.
func (s *Service) updateSettingChanged(on bool) {
	if s.opt.Updater == nil {
		return
	}
	s.opt.Updater.SetAuto(on)
	s.updates.mu.Lock()
	running := s.updates.cancel != nil
	s.updates.mu.Unlock()
	switch {
	case on && !running && s.opt.Updater.Kind() != update.KindNone:
		s.runUpdateLoop()
	case !on && running:
		s.stopUpdateChecks()
	}
}

func (s *Service) runUpdateLoop() {
	first, every := s.opt.UpdateFirstCheck, s.opt.UpdateEvery
	if first <= 0 {
		first = 10 * time.Second
	}
	if every <= 0 {
		every = 24 * time.Hour
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.updates.mu.Lock()
	s.updates.cancel, s.updates.done = cancel, done
	s.updates.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTimer(first)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := s.opt.Updater.CheckAndStage(ctx); err != nil {
				// Offline, nothing is said: the state carries it for Settings.
				s.opt.Logger.Info("automatic update check", "err", err)
			}
			t.Reset(every)
		}
	}()
}

// updateChecksRunning reports whether the automatic checks' loop runs.
func (s *Service) updateChecksRunning() bool {
	s.updates.mu.Lock()
	defer s.updates.mu.Unlock()
	return s.updates.cancel != nil
}

func (s *Service) stopUpdateChecks() {
	s.updates.mu.Lock()
	cancel, done := s.updates.cancel, s.updates.done
	s.updates.cancel, s.updates.done = nil, nil
	s.updates.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (s *Service) closeUpdates() {
	s.stopUpdateChecks()
	s.updates.stages.Wait()
}
