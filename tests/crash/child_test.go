package crash

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// ---------------------------------------------------------------------------
// The child process.

var servingRE = regexp.MustCompile(`Parley \S+ is serving on (http://127\.0\.0\.1:\d+)`)

type child struct {
	name    string
	cmd     *exec.Cmd
	url     string
	logPath string
	exited  chan struct{}
	state   *os.ProcessState
	waitErr error
}

// cleanEnv is the test's environment without PARLEY_* settings, so only
// the flags configure the child.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PARLEY_") {
			env = append(env, kv)
		}
	}
	return env
}

// startChild runs `parley serve` and waits until it prints its URL.
func startChild(name, dataDir, modelURL, logPath string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd := exec.Command(parleyBin, "serve", "--data-dir", dataDir, "--addr", "127.0.0.1:0",
		"--token", apiToken, "--base-url", modelURL, "--model", modelName)
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = pw, logFile
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	pw.Close()
	c := &child{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	urlCh := make(chan string, 1)
	stdoutDone := make(chan struct{})
	go func() {
		defer close(stdoutDone)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if m := servingRE.FindStringSubmatch(line); m != nil {
				select {
				case urlCh <- m[1]:
				default:
				}
			}
		}
		pr.Close()
	}()
	go func() {
		c.waitErr = cmd.Wait()
		c.state = cmd.ProcessState
		<-stdoutDone
		logFile.Close()
		close(c.exited)
	}()
	select {
	case c.url = <-urlCh:
		return c, nil
	case <-c.exited:
		return nil, fmt.Errorf("%s exited before serving (%v); log %s:\n%s", name, c.waitErr, logPath, tail(logPath))
	case <-time.After(startTimeout):
		c.kill()
		return nil, fmt.Errorf("%s did not print its URL within %s; log %s:\n%s", name, startTimeout, logPath, tail(logPath))
	}
}

func (c *child) running() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// kill SIGKILLs the child and waits until it is gone.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(exitTimeout):
	}
}

// terminate sends SIGTERM and returns an error unless the child exits with
// code 0 in time.
func (c *child) terminate() error {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("SIGTERM %s: %w", c.name, err)
	}
	select {
	case <-c.exited:
	case <-time.After(exitTimeout):
		c.kill()
		return fmt.Errorf("%s still running %s after SIGTERM", c.name, exitTimeout)
	}
	if c.state == nil || !c.state.Success() {
		return fmt.Errorf("%s did not exit cleanly on SIGTERM: %v (exit code %d)", c.name, c.waitErr, c.state.ExitCode())
	}
	return nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
