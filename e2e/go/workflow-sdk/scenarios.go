package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dapr/go-sdk/workflow"
	"github.com/microsoft/durabletask-go/api"
)

// observed is what a scenario saw, reported as it is: the mocha test holds the expectations.
type observed map[string]any

type scenario struct {
	name string
	run  func(ctx context.Context, c *workflow.Client) (observed, error)
}

var scenarios = []scenario{
	{"activity-sequence", activitySequence},
	{"child-without-instance-id", childWithoutInstanceID},
	{"child-with-instance-id", childWithInstanceID},
	{"external-event", externalEvent},
	{"activity-failure-caught", activityFailureCaught},
	{"activity-failure-uncaught", activityFailureUncaught},
	{"suspend-resume-terminate-purge", suspendResumeTerminatePurge},
	{"suspended-instance-holds-event", suspendedInstanceHoldsEvent},
	{"durable-timer", durableTimer},
	{"reuse-policy-ignore-running", reusePolicyIgnoreRunning},
	{"reuse-policy-terminate-running", reusePolicyTerminateRunning},
	{"reuse-policy-refused", reusePolicyRefused},
	{"reuse-no-policy-completed", reuseNoPolicyCompleted},
	{"child-hex-id", childHexID},
	{"child-invalid-id", childInvalidID},
	{"grpc-invalid-ids", grpcInvalidIDs},
}

func activitySequence(ctx context.Context, c *workflow.Client) (observed, error) {
	done, err := runToCompletion(ctx, c, "Sequence", "go-sequence", workflow.WithInput([]string{"Tokyo", "Seattle", "London"}))
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done)}, nil
}

func childWithoutInstanceID(ctx context.Context, c *workflow.Client) (observed, error) {
	return parentAndChild(ctx, c, "ParentOfAutoNamedChild", "go-parent-auto")
}

func childWithInstanceID(ctx context.Context, c *workflow.Client) (observed, error) {
	return parentAndChild(ctx, c, "ParentOfNamedChild", "go-parent-named")
}

// parentAndChild runs a parent to completion, then fetches the child under the ID the child reported for itself.
func parentAndChild(ctx context.Context, c *workflow.Client, parentWorkflow, id string) (observed, error) {
	parent, err := runToCompletion(ctx, c, parentWorkflow, id)
	if err != nil {
		return nil, err
	}
	var outcome ChildOutcome
	if err := json.Unmarshal([]byte(parent.SerializedOutput), &outcome); err != nil || outcome.ID == "" {
		return observed{"parent": view(parent)}, fmt.Errorf("the parent's output names no child (%q)", parent.SerializedOutput)
	}
	child, err := c.FetchWorkflowMetadata(ctx, outcome.ID, workflow.WithFetchPayloads(true))
	if err != nil {
		return observed{"parent": view(parent)}, fmt.Errorf("fetching child %s: %w", outcome.ID, err)
	}
	return observed{"parent": view(parent), "child": view(child)}, nil
}

func externalEvent(ctx context.Context, c *workflow.Client) (observed, error) {
	id, err := startAndWaitRunning(ctx, c, "AwaitApproval", "go-approval")
	if err != nil {
		return nil, err
	}
	if err := c.RaiseEvent(ctx, id, "approval", workflow.WithEventPayload(map[string]string{"by": "alice"})); err != nil {
		return nil, fmt.Errorf("raising the event: %w", err)
	}
	done, err := waitForCompletion(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done)}, nil
}

func activityFailureCaught(ctx context.Context, c *workflow.Client) (observed, error) {
	done, err := runToCompletion(ctx, c, "CatchActivityFailure", "go-failure-caught")
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done)}, nil
}

func activityFailureUncaught(ctx context.Context, c *workflow.Client) (observed, error) {
	done, err := runToCompletion(ctx, c, "LetActivityFailure", "go-failure-uncaught")
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done)}, nil
}

func suspendResumeTerminatePurge(ctx context.Context, c *workflow.Client) (observed, error) {
	id, err := startAndWaitRunning(ctx, c, "AwaitForever", "go-lifecycle")
	if err != nil {
		return nil, err
	}
	seen := observed{}
	if err := c.SuspendWorkflow(ctx, id, "paused by the go client"); err != nil {
		return seen, fmt.Errorf("suspend: %w", err)
	}
	if seen["statusAfterSuspend"], err = statusOf(ctx, c, id); err != nil {
		return seen, err
	}
	if err := c.ResumeWorkflow(ctx, id, "resumed by the go client"); err != nil {
		return seen, fmt.Errorf("resume: %w", err)
	}
	if seen["statusAfterResume"], err = statusOf(ctx, c, id); err != nil {
		return seen, err
	}
	if err := c.TerminateWorkflow(ctx, id, workflow.WithOutput("stopped by the go client")); err != nil {
		return seen, fmt.Errorf("terminate: %w", err)
	}
	done, err := waitForCompletion(ctx, c, id)
	if err != nil {
		return seen, err
	}
	seen["terminated"] = view(done)
	if err := c.PurgeWorkflow(ctx, id); err != nil {
		return seen, fmt.Errorf("purge: %w", err)
	}
	_, err = c.FetchWorkflowMetadata(ctx, id)
	seen["fetchAfterPurge"] = notFoundOr(err)
	seen["secondPurge"] = notFoundOr(c.PurgeWorkflow(ctx, id))
	return seen, nil
}

// suspendedInstanceHoldsEvent raises the event the workflow waits for while it is suspended: it must complete
// only after the resume, with that event.
func suspendedInstanceHoldsEvent(ctx context.Context, c *workflow.Client) (observed, error) {
	id, err := startAndWaitRunning(ctx, c, "AwaitForever", "go-suspended-event")
	if err != nil {
		return nil, err
	}
	seen := observed{}
	if err := c.SuspendWorkflow(ctx, id, "hold"); err != nil {
		return seen, fmt.Errorf("suspend: %w", err)
	}
	if err := c.RaiseEvent(ctx, id, "release", workflow.WithEventPayload(map[string]int{"n": 1})); err != nil {
		return seen, fmt.Errorf("raising the event: %w", err)
	}
	// Long enough for the event to have been delivered had the suspension not held it.
	time.Sleep(500 * time.Millisecond)
	if seen["statusWhileSuspended"], err = statusOf(ctx, c, id); err != nil {
		return seen, err
	}
	if err := c.ResumeWorkflow(ctx, id, "go on"); err != nil {
		return seen, fmt.Errorf("resume: %w", err)
	}
	done, err := waitForCompletion(ctx, c, id)
	if err != nil {
		return seen, err
	}
	seen["instance"] = view(done)
	return seen, nil
}

func durableTimer(ctx context.Context, c *workflow.Client) (observed, error) {
	started := time.Now()
	done, err := runToCompletion(ctx, c, "Nap", "go-nap", workflow.WithInput(1000))
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done), "wallMs": time.Since(started).Milliseconds()}, nil
}

// --- client steps ---------------------------------------------------------------------------------------------

func runToCompletion(ctx context.Context, c *workflow.Client, name, id string, opts ...api.NewOrchestrationOptions) (*workflow.Metadata, error) {
	if _, err := c.ScheduleNewWorkflow(ctx, name, append(opts, workflow.WithInstanceID(id))...); err != nil {
		return nil, fmt.Errorf("scheduling %s: %w", name, err)
	}
	return waitForCompletion(ctx, c, id)
}

func startAndWaitRunning(ctx context.Context, c *workflow.Client, name, id string, opts ...api.NewOrchestrationOptions) (string, error) {
	if _, err := c.ScheduleNewWorkflow(ctx, name, append(opts, workflow.WithInstanceID(id))...); err != nil {
		return "", fmt.Errorf("scheduling %s: %w", name, err)
	}
	if _, err := c.WaitForWorkflowStart(ctx, id); err != nil {
		return "", fmt.Errorf("waiting for %s to start: %w", id, err)
	}
	return id, nil
}

// waitForCompletion waits until the instance ends; if the scenario's time runs out first, the error says in
// which status the instance was left.
func waitForCompletion(ctx context.Context, c *workflow.Client, id string) (*workflow.Metadata, error) {
	done, err := c.WaitForWorkflowCompletion(ctx, id, workflow.WithFetchPayloads(true))
	if err == nil {
		return done, nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		probe, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if status, statusErr := statusOf(probe, c, id); statusErr == nil {
			return nil, fmt.Errorf("%s did not complete in time: still %s", id, status)
		}
	}
	return nil, fmt.Errorf("waiting for %s to complete: %w", id, err)
}

func statusOf(ctx context.Context, c *workflow.Client, id string) (string, error) {
	meta, err := c.FetchWorkflowMetadata(ctx, id)
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", id, err)
	}
	return meta.RuntimeStatus.String(), nil
}

// notFoundOr reports a call that should find no instance: "not found", "no error", or the unexpected error.
func notFoundOr(err error) string {
	switch {
	case err == nil:
		return "no error"
	case errors.Is(err, api.ErrInstanceNotFound):
		return "not found"
	default:
		return err.Error()
	}
}

// view is an instance's metadata as reported; input and output stay the JSON the workflow gave.
func view(m *workflow.Metadata) map[string]any {
	v := map[string]any{"id": m.InstanceID, "name": m.Name, "status": m.RuntimeStatus.String()}
	for key, raw := range map[string]string{"input": m.SerializedInput, "output": m.SerializedOutput} {
		switch {
		case raw == "":
		case json.Valid([]byte(raw)):
			v[key] = json.RawMessage(raw)
		default:
			v[key+"Text"] = raw
		}
	}
	return v
}
