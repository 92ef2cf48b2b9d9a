package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dapr/go-sdk/workflow"
	"github.com/microsoft/durabletask-go/api"
	"google.golang.org/grpc/status"
)

// The scenarios about instance IDs: reusing the ID of an existing instance, the IDs the engine gives children
// started without one, and the IDs it refuses.

// waitLong is a GreetWhenReleased timeout that never fires in a test: only the "release" event ends the wait.
const waitLong = int64(time.Minute / time.Millisecond)

// reusePolicy is the Durable Task instance-ID reuse policy of a start. The Dapr SDK has no option for it;
// ScheduleNewWorkflow passes durabletask-go's on as it is.
func reusePolicy(action api.CreateOrchestrationAction, statuses ...api.OrchestrationStatus) api.NewOrchestrationOptions {
	return api.WithOrchestrationIdReusePolicy(&api.OrchestrationIdReusePolicy{Action: action, OperationStatus: statuses})
}

// reusePolicyIgnoreRunning starts a second run over a running instance with IGNORE for RUNNING: the start
// answers the same ID and the running instance goes on with its own input.
func reusePolicyIgnoreRunning(ctx context.Context, c *workflow.Client) (observed, error) {
	const id = "go-reuse-ignore"
	if _, err := startAndWaitRunning(ctx, c, "GreetWhenReleased", id, workflow.WithInput(Release{Name: "first", WaitMs: waitLong})); err != nil {
		return nil, err
	}
	answered, err := c.ScheduleNewWorkflow(ctx, "GreetWhenReleased", workflow.WithInstanceID(id),
		workflow.WithInput(Release{Name: "second", WaitMs: waitLong}), reusePolicy(api.REUSE_ID_ACTION_IGNORE, api.RUNTIME_STATUS_RUNNING))
	if err != nil {
		return nil, fmt.Errorf("the start with IGNORE: %w", err)
	}
	seen := observed{"answeredId": answered}
	meta, err := c.FetchWorkflowMetadata(ctx, id, workflow.WithFetchPayloads(true))
	if err != nil {
		return seen, fmt.Errorf("fetching %s: %w", id, err)
	}
	seen["afterIgnoredStart"] = view(meta)
	return releaseAndWait(ctx, c, id, seen)
}

// reusePolicyTerminateRunning replaces a running instance with TERMINATE for RUNNING. The old run would end by
// itself after a second (its wait times out): waiting past that shows that nothing of it outlived the
// replacement, neither its timer nor its result.
func reusePolicyTerminateRunning(ctx context.Context, c *workflow.Client) (observed, error) {
	const id = "go-reuse-terminate"
	if _, err := startAndWaitRunning(ctx, c, "GreetWhenReleased", id, workflow.WithInput(Release{Name: "old", WaitMs: 1000})); err != nil {
		return nil, err
	}
	if _, err := startAndWaitRunning(ctx, c, "GreetWhenReleased", id,
		workflow.WithInput(Release{Name: "new", WaitMs: waitLong}), reusePolicy(api.REUSE_ID_ACTION_TERMINATE, api.RUNTIME_STATUS_RUNNING)); err != nil {
		return nil, fmt.Errorf("the start with TERMINATE: %w", err)
	}
	time.Sleep(1500 * time.Millisecond)
	meta, err := c.FetchWorkflowMetadata(ctx, id, workflow.WithFetchPayloads(true))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", id, err)
	}
	return releaseAndWait(ctx, c, id, observed{"afterOldTimeout": view(meta)})
}

// reusePolicyRefused tries three starts over a running instance that must all be refused: ERROR for RUNNING,
// TERMINATE for terminal statuses only (RUNNING not listed), and no policy. The instance goes on untouched.
func reusePolicyRefused(ctx context.Context, c *workflow.Client) (observed, error) {
	const id = "go-reuse-refused"
	if _, err := startAndWaitRunning(ctx, c, "GreetWhenReleased", id, workflow.WithInput(Release{Name: "kept", WaitMs: waitLong})); err != nil {
		return nil, err
	}
	restart := func(opts ...api.NewOrchestrationOptions) map[string]string {
		opts = append(opts, workflow.WithInstanceID(id), workflow.WithInput(Release{Name: "intruder", WaitMs: waitLong}))
		_, err := c.ScheduleNewWorkflow(ctx, "GreetWhenReleased", opts...)
		return grpcOutcome(err)
	}
	seen := observed{
		"errorForRunning":            restart(reusePolicy(api.REUSE_ID_ACTION_ERROR, api.RUNTIME_STATUS_RUNNING)),
		"terminateForTerminalStates": restart(reusePolicy(api.REUSE_ID_ACTION_TERMINATE, api.RUNTIME_STATUS_COMPLETED, api.RUNTIME_STATUS_FAILED, api.RUNTIME_STATUS_TERMINATED)),
		"noPolicy":                   restart(),
	}
	return releaseAndWait(ctx, c, id, seen)
}

// reuseNoPolicyCompleted starts a completed instance's ID again without a policy: the new run replaces it.
func reuseNoPolicyCompleted(ctx context.Context, c *workflow.Client) (observed, error) {
	const id = "go-reuse-completed"
	first, err := runToCompletion(ctx, c, "Sequence", id, workflow.WithInput([]string{"Oslo"}))
	if err != nil {
		return nil, err
	}
	second, err := runToCompletion(ctx, c, "Sequence", id, workflow.WithInput([]string{"Lima"}))
	if err != nil {
		return observed{"first": view(first)}, err
	}
	return observed{"first": view(first), "second": view(second)}, nil
}

func childHexID(ctx context.Context, c *workflow.Client) (observed, error) {
	return parentAndChild(ctx, c, "ParentOfTwelfthActionChild", "go-parent-hex")
}

func childInvalidID(ctx context.Context, c *workflow.Client) (observed, error) {
	done, err := runToCompletion(ctx, c, "ParentOfInvalidChild", "go-parent-invalid-child")
	if err != nil {
		return nil, err
	}
	return observed{"instance": view(done)}, nil
}

// grpcInvalidIDs sends IDs the sidecar must refuse, and one of the longest it must accept.
func grpcInvalidIDs(ctx context.Context, c *workflow.Client) (observed, error) {
	start := func(id string) map[string]string {
		_, err := c.ScheduleNewWorkflow(ctx, "Sequence", workflow.WithInstanceID(id), workflow.WithInput([]string{}))
		return grpcOutcome(err)
	}
	_, fetchErr := c.FetchWorkflowMetadata(ctx, "a/b")
	seen := observed{
		"startSlash":   start("a/b"),
		"start65Chars": start(strings.Repeat("x", 65)),
		"fetchSlash":   grpcOutcome(fetchErr),
	}
	longest, err := runToCompletion(ctx, c, "Sequence", strings.Repeat("y", 64), workflow.WithInput([]string{}))
	if err != nil {
		return seen, fmt.Errorf("a 64-character ID: %w", err)
	}
	seen["start64Chars"] = longest.RuntimeStatus.String()
	return seen, nil
}

// releaseAndWait sends GreetWhenReleased its "release" event and adds the ended instance to what was seen.
func releaseAndWait(ctx context.Context, c *workflow.Client, id string, seen observed) (observed, error) {
	if err := c.RaiseEvent(ctx, id, "release"); err != nil {
		return seen, fmt.Errorf("raising the event: %w", err)
	}
	done, err := waitForCompletion(ctx, c, id)
	if err != nil {
		return seen, err
	}
	seen["ended"] = view(done)
	return seen, nil
}

// grpcOutcome is how a call ended: the gRPC status code (OK without an error) and the sidecar's message; an
// error that carries no gRPC status is reported under "error".
func grpcOutcome(err error) map[string]string {
	if err == nil {
		return map[string]string{"code": "OK"}
	}
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return map[string]string{"error": err.Error()}
	}
	s := withStatus.GRPCStatus()
	return map[string]string{"code": s.Code().String(), "message": s.Message()}
}
