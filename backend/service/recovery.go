package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// recover puts back what the last process left: cancelled runs end,
// interrupted ones are marked, pending cards resume their runs, answered
// ones continue, and late answers are delivered again.
func (s *Service) recover(ctx context.Context) error {
	if err := s.endElicitations(ctx); err != nil {
		return err
	}
	if err := s.endCancelledRuns(ctx); err != nil {
		return err
	}
	if n, err := s.store.MarkInterruptedRuns(ctx); err != nil {
		return fmt.Errorf("mark interrupted runs: %w", err)
	} else if n > 0 {
		s.log.Info("runs interrupted by the last shutdown", "count", n)
	}
	cards, err := s.store.CardsByStatus(ctx, questions.StatusPending, questions.StatusTimedOut)
	if err != nil {
		return fmt.Errorf("load pending questions: %w", err)
	}
	if err := s.qm.Restore(cards); err != nil {
		return fmt.Errorf("restore pending questions: %w", err)
	}
	s.agentCards.restored(cards)
	resumed := map[string]bool{} // conversation ids
	for _, c := range cards {
		if c.Status != questions.StatusPending || c.FromAgent() {
			// An agent's card has no run: the agent asks get_answer again.
			continue
		}
		conv, err := s.store.GetConversation(ctx, c.ConversationID)
		if err != nil {
			s.log.Warn("pending question without conversation", "question", c.ID, "err", err)
			continue
		}
		if _, err := s.rt.Start(assistant.StartRequest{ConversationID: c.ConversationID, Profile: conv.Assistant, Model: conv.Model, Thinking: conv.Thinking, AwaitCard: c}); err != nil {
			s.log.Warn("resume run for pending question", "question", c.ID, "err", err)
			continue
		}
		resumed[c.ConversationID] = true
	}
	if err := s.continueAnsweredRuns(ctx, resumed); err != nil {
		return err
	}
	return s.redeliverLateAnswers(ctx)
}

// endElicitations cancels the elicitation cards still pending from the last
// process: the MCP server's request ended with its session, so they cannot
// be answered. Each says so; its run then ends like a cancelled one (its
// tool call gets that line as result), so nothing is silently dropped.
func (s *Service) endElicitations(ctx context.Context) error {
	cards, err := s.store.CardsByStatus(ctx, questions.StatusPending)
	if err != nil {
		return fmt.Errorf("load pending questions: %w", err)
	}
	for _, c := range cards {
		if c.Kind != questions.KindElicitation {
			continue
		}
		c.Status = questions.StatusCancelled
		c.Reason = questions.ElicitationEndedAtCloseReason
		if err := s.store.SaveCard(ctx, c); err != nil {
			return fmt.Errorf("end elicitation card %s: %w", c.ID, err)
		}
		s.log.Info("elicitation card ended: its server's request ended when Parley closed", "question", c.ID, "server", c.Server)
	}
	return nil
}

// endCancelledRuns ends the runs the user had stopped by cancelling a card
// when the last process died before they ended: a stored cancel is honoured
// (the conversation goes idle), never turned into an interrupted run that
// offers a retry, nor continued.
func (s *Service) endCancelledRuns(ctx context.Context) error {
	runs, err := s.store.UnfinishedRuns(ctx)
	if err != nil {
		return fmt.Errorf("load unfinished runs: %w", err)
	}
	for _, run := range runs {
		ended, err := s.rt.EndCancelledRun(ctx, run)
		if err != nil {
			return fmt.Errorf("end cancelled run %s: %w", run.ID, err)
		}
		if ended {
			s.log.Info("run cancelled by the user before the last shutdown ended", "run", run.ID, "conversation", run.ConversationID)
		}
	}
	return nil
}

// redeliverLateAnswers posts late answers again whose user turn was never
// stored (the process died between storing the answer and the new run).
func (s *Service) redeliverLateAnswers(ctx context.Context) error {
	cards, err := s.store.CardsByStatus(ctx, questions.StatusAnsweredLate)
	if err != nil {
		return fmt.Errorf("load late answers: %w", err)
	}
	for _, c := range cards {
		// Every branch: a turn the user has switched away from was delivered.
		msgs, err := s.store.AllMessages(ctx, c.ConversationID)
		if err != nil {
			return fmt.Errorf("load conversation %s: %w", c.ConversationID, err)
		}
		if !slices.ContainsFunc(msgs, func(m chat.Message) bool { return m.Role == chat.RoleUser && questions.IsLateAnswerTurn(c, m.Content) }) {
			s.log.Info("late answer delivered again after a restart", "question", c.ID)
			s.onLateAnswer(c)
		}
	}
	return nil
}

// continueAnsweredRuns goes on with runs that were awaiting the user when
// the last process died and whose card is no longer pending: the user had
// answered (or skipped, cancelled, or it timed out) just before, and the
// answer must still reach the model. The run continues under its own id
// and takes the outcome from the stored card; one with nothing left to do is
// marked interrupted, which offers a retry.
func (s *Service) continueAnsweredRuns(ctx context.Context, resumed map[string]bool) error {
	runs, err := s.store.RunsByStatus(ctx, chat.RunAwaiting)
	if err != nil {
		return fmt.Errorf("load runs awaiting the user: %w", err)
	}
	for _, run := range runs {
		if resumed[run.ConversationID] {
			continue
		}
		conv, err := s.store.GetConversation(ctx, run.ConversationID)
		if err == nil {
			err = s.rt.Resume(ctx, run.ConversationID, run.ID, conv.Assistant)
		}
		if err == nil {
			resumed[run.ConversationID] = true
			s.log.Info("run continued with an answer given before the restart", "run", run.ID, "conversation", run.ConversationID)
			continue
		}
		s.log.Warn("run awaiting the user cannot continue", "run", run.ID, "conversation", run.ConversationID, "err", err)
		run.Status = chat.RunInterrupted
		if run.EndedAt == nil {
			now := time.Now().UTC()
			run.EndedAt = &now
		}
		if err := s.store.SaveRun(ctx, &run); err != nil {
			return fmt.Errorf("mark run %s interrupted: %w", run.ID, err)
		}
	}
	return nil
}
