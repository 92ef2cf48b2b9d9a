// Command runtime-client calls svcd's gRPC runtime API through the Dapr Go SDK client (github.com/dapr/go-sdk/client),
// as a Go app would: state with ETags, bulk and transactions, publish and bulk publish, an output binding, metadata,
// workflow management, secrets and the errors of unknown components. With the arguments `blocks <run>` it runs the
// secrets, configuration and lock steps instead (blocks_*.go). It finds the sidecar as a Dapr app does
// (DAPR_GRPC_PORT, DAPR_API_TOKEN) and prints one JSON line per step: what it observed, or its error.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"time"

	dapr "github.com/dapr/go-sdk/client"
	"google.golang.org/grpc/status"
)

type step struct {
	name string
	run  func(ctx context.Context, c dapr.Client) (map[string]any, error)
}

var steps = []step{
	{"state", stateStep},
	{"state-errors", stateErrorsStep},
	{"state-ttl", stateTTLStep},
	{"publish", publishStep},
	{"binding", bindingStep},
	{"metadata", metadataStep},
	{"workflow", workflowStep},
	{"streaming", streamingStep},
	{"actors", actorsStep},
	{"secrets", secretsStep},
}

func main() {
	run := steps
	if len(os.Args) == 3 && os.Args[1] == "blocks" {
		run = blockSteps(os.Args[2])
	} else if len(os.Args) != 1 {
		log.Fatalf("usage: runtime-client [blocks <run>]")
	}
	// The SDK prints "dapr configuration subscribe finished." to stdout when a subscription ends: stdout carries
	// only this program's JSON lines, so whatever else prints goes to stderr.
	results := os.Stdout
	os.Stdout = os.Stderr
	dapr.SetLogger(log.New(os.Stderr, "", log.LstdFlags))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := dapr.NewClient()
	if err != nil {
		log.Fatalf("creating the client: %v", err)
	}
	defer c.Close()
	failed := false
	for _, s := range run {
		observed, err := s.run(ctx, c)
		line := map[string]any{"step": s.name, "observed": observed}
		if err != nil {
			line["error"] = err.Error()
			failed = true
		}
		out, _ := json.Marshal(line)
		fmt.Fprintln(results, string(out))
	}
	if failed {
		os.Exit(1)
	}
}

func stateStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	if err := c.SaveState(ctx, "statestore", "order", []byte(`{"n":1}`), nil); err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	item, err := c.GetState(ctx, "statestore", "order", nil)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	staleErr := c.SaveStateWithETag(ctx, "statestore", "order", []byte(`{"n":2}`), "999999", nil) // well-formed, not current
	if err := c.SaveStateWithETag(ctx, "statestore", "order", []byte(`{"n":3}`), item.Etag, nil); err != nil {
		return nil, fmt.Errorf("save with the etag: %w", err)
	}
	ops := []*dapr.StateOperation{
		{Type: dapr.StateOperationTypeUpsert, Item: &dapr.SetStateItem{Key: "a", Value: []byte(`"A"`)}},
		{Type: dapr.StateOperationTypeUpsert, Item: &dapr.SetStateItem{Key: "b", Value: []byte(`"B"`)}},
	}
	if err := c.ExecuteStateTransaction(ctx, "statestore", nil, ops); err != nil {
		return nil, fmt.Errorf("transaction: %w", err)
	}
	bulk, err := c.GetBulkState(ctx, "statestore", []string{"order", "a", "b", "missing"}, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("bulk get: %w", err)
	}
	values := map[string]string{}
	for _, i := range bulk {
		values[i.Key] = string(i.Value)
	}
	if err := c.DeleteBulkState(ctx, "statestore", []string{"a", "b"}, nil); err != nil {
		return nil, fmt.Errorf("bulk delete: %w", err)
	}
	if err := c.DeleteState(ctx, "statestore", "order", nil); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	gone, err := c.GetState(ctx, "statestore", "order", nil)
	if err != nil {
		return nil, fmt.Errorf("get after delete: %w", err)
	}
	return map[string]any{
		"value": string(item.Value), "etagSet": item.Etag != "", "staleSave": statusOf(staleErr),
		"bulk": values, "afterDelete": string(gone.Value),
	}, nil
}

func stateTTLStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	if err := c.SaveState(ctx, "statestore", "session", []byte(`"s"`), map[string]string{"ttlInSeconds": "1"}); err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	live, err := c.GetState(ctx, "statestore", "session", nil)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	time.Sleep(1300 * time.Millisecond)
	gone, err := c.GetState(ctx, "statestore", "session", nil)
	if err != nil {
		return nil, fmt.Errorf("get after expiry: %w", err)
	}
	badTTL := c.SaveState(ctx, "statestore", "session", []byte(`"s"`), map[string]string{"ttlInSeconds": "soon"})
	return map[string]any{"live": string(live.Value), "expireTimeSet": live.Metadata["ttlExpireTime"] != "", "afterExpiry": string(gone.Value), "badTTL": statusOf(badTTL)}, nil
}

func stateErrorsStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	_, err := c.GetState(ctx, "nope", "k", nil)
	return map[string]any{"unknownStore": statusOf(err)}, nil
}

func publishStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	if err := c.PublishEvent(ctx, "pubsub", "orders", map[string]any{"orderId": 1}); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res := c.PublishEvents(ctx, "pubsub", "orders", []any{map[string]any{"orderId": 2}, map[string]any{"orderId": 3}})
	if res.Error != nil {
		return nil, fmt.Errorf("bulk publish: %w", res.Error)
	}
	unknown := c.PublishEvent(ctx, "nope", "orders", map[string]any{})
	return map[string]any{"failedEvents": len(res.FailedEvents), "unknownPubsub": statusOf(unknown)}, nil
}

func bindingStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	created, err := c.InvokeBinding(ctx, &dapr.InvokeBindingRequest{Name: "outbox", Operation: "create", Data: []byte(`{"order":7}`), Metadata: map[string]string{"contentType": "application/json"}})
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	got, err := c.InvokeBinding(ctx, &dapr.InvokeBindingRequest{Name: "outbox", Operation: "get", Metadata: map[string]string{"id": created.Metadata["id"]}})
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	_, unsupported := c.InvokeBinding(ctx, &dapr.InvokeBindingRequest{Name: "outbox", Operation: "explode"})
	return map[string]any{"created": string(created.Data), "got": string(got.Data), "unsupported": statusOf(unsupported)}, nil
}

func metadataStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	if err := c.SetMetadata(ctx, "team", "payments"); err != nil {
		return nil, fmt.Errorf("set: %w", err)
	}
	md, err := c.GetMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	names := []string{}
	for _, comp := range md.RegisteredComponents {
		names = append(names, comp.Name)
	}
	sort.Strings(names)
	topics := []string{}
	for _, s := range md.Subscriptions {
		topics = append(topics, s.Topic)
	}
	return map[string]any{"id": md.ID, "components": names, "extended": md.ExtendedMetadata, "topics": topics}, nil
}

func workflowStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	started, err := c.StartWorkflowBeta1(ctx, &dapr.StartWorkflowRequest{InstanceID: "go-wf-1", WorkflowComponent: "dapr", WorkflowName: "notRegistered", Input: map[string]int{"n": 1}})
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	got, err := c.GetWorkflowBeta1(ctx, &dapr.GetWorkflowRequest{InstanceID: started.InstanceID, WorkflowComponent: "dapr"})
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if err := c.TerminateWorkflowBeta1(ctx, &dapr.TerminateWorkflowRequest{InstanceID: started.InstanceID, WorkflowComponent: "dapr"}); err != nil {
		return nil, fmt.Errorf("terminate: %w", err)
	}
	terminated, err := c.GetWorkflowBeta1(ctx, &dapr.GetWorkflowRequest{InstanceID: started.InstanceID, WorkflowComponent: "dapr"})
	if err != nil {
		return nil, fmt.Errorf("get after terminate: %w", err)
	}
	if err := c.PurgeWorkflowBeta1(ctx, &dapr.PurgeWorkflowRequest{InstanceID: started.InstanceID, WorkflowComponent: "dapr"}); err != nil {
		return nil, fmt.Errorf("purge: %w", err)
	}
	_, missing := c.GetWorkflowBeta1(ctx, &dapr.GetWorkflowRequest{InstanceID: started.InstanceID, WorkflowComponent: "dapr"})
	return map[string]any{
		"instanceID": started.InstanceID, "name": got.WorkflowName, "status": got.RuntimeStatus, "input": got.Properties["dapr.workflow.input"],
		"createdRecently": time.Since(got.CreatedAt) < time.Minute, "afterTerminate": terminated.RuntimeStatus, "afterPurge": statusOf(missing),
	}, nil
}

func streamingStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	sub, err := c.Subscribe(ctx, dapr.SubscriptionOptions{PubsubName: "pubsub", Topic: "stream"})
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	md, err := c.GetMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	subscribed := false
	for _, s := range md.Subscriptions {
		subscribed = subscribed || s.Topic == "stream"
	}
	for n := 1; n <= 3; n++ {
		if err := c.PublishEvent(ctx, "pubsub", "stream", map[string]int{"n": n}); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
	}
	// The first delivery of n=1 is answered RETRY: it must come again.
	received := []float64{}
	retried := false
	for len(received) < 3 {
		msg, err := sub.Receive()
		if err != nil {
			return nil, fmt.Errorf("receive: %w", err)
		}
		n := msg.Data.(map[string]any)["n"].(float64)
		if n == 1 && !retried {
			retried = true
			if err := msg.Retry(); err != nil {
				return nil, fmt.Errorf("retry: %w", err)
			}
			continue
		}
		if err := msg.Success(); err != nil {
			return nil, fmt.Errorf("success: %w", err)
		}
		received = append(received, n)
	}
	if err := sub.Close(); err != nil {
		return nil, fmt.Errorf("close: %w", err)
	}
	sort.Float64s(received)
	return map[string]any{"subscribedInMetadata": subscribed, "received": received, "retried": retried}, nil
}

func actorsStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	out, err := c.InvokeActor(ctx, &dapr.InvokeActorRequest{ActorType: "Counter", ActorID: "c1", Method: "add", Data: []byte(`{"by":2}`)})
	if err != nil {
		return nil, fmt.Errorf("invoke: %w", err)
	}
	ops := []*dapr.ActorStateOperation{{OperationType: "upsert", Key: "count", Value: []byte(`5`)}, {OperationType: "upsert", Key: "gone", Value: []byte(`1`)}, {OperationType: "delete", Key: "gone"}}
	if err := c.SaveStateTransactionally(ctx, "Counter", "c1", ops); err != nil {
		return nil, fmt.Errorf("state transaction: %w", err)
	}
	count, err := c.GetActorState(ctx, &dapr.GetActorStateRequest{ActorType: "Counter", ActorID: "c1", KeyName: "count"})
	if err != nil {
		return nil, fmt.Errorf("get state: %w", err)
	}
	gone, err := c.GetActorState(ctx, &dapr.GetActorStateRequest{ActorType: "Counter", ActorID: "c1", KeyName: "gone"})
	if err != nil {
		return nil, fmt.Errorf("get deleted state: %w", err)
	}
	if err := c.RegisterActorReminder(ctx, &dapr.RegisterActorReminderRequest{ActorType: "Counter", ActorID: "c1", Name: "ping", DueTime: "0s", Period: "1h", Data: []byte(`{"r":1}`)}); err != nil {
		return nil, fmt.Errorf("register reminder: %w", err)
	}
	if err := c.RegisterActorTimer(ctx, &dapr.RegisterActorTimerRequest{ActorType: "Counter", ActorID: "c1", Name: "tick", DueTime: "0s", CallBack: "onTick", Data: []byte(`{"t":1}`)}); err != nil {
		return nil, fmt.Errorf("register timer: %w", err)
	}
	time.Sleep(500 * time.Millisecond) // both due at once: the app gets their callbacks
	if err := c.UnregisterActorReminder(ctx, &dapr.UnregisterActorReminderRequest{ActorType: "Counter", ActorID: "c1", Name: "ping"}); err != nil {
		return nil, fmt.Errorf("unregister reminder: %w", err)
	}
	_, notHosted := c.InvokeActor(ctx, &dapr.InvokeActorRequest{ActorType: "NotHere", ActorID: "x", Method: "m"})
	return map[string]any{"invoked": string(out.Data), "count": string(count.Data), "deleted": string(gone.Data), "notHosted": statusOf(notHosted)}, nil
}

// statusOf is the gRPC code and message of an error, or its text when the SDK kept only that ("" for none).
func statusOf(err error) string {
	if err == nil {
		return ""
	}
	// The SDK wraps some errors (%w: the status is found) and formats others (%v: only the text is left).
	if s, ok := status.FromError(err); ok {
		return s.Code().String() + ": " + s.Message()
	}
	return err.Error()
}

// secretsStep reads the "envstore" secret store (secretstores.local.env with prefix GO_SECRET_, which the test sets).
func secretsStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	o, err := readSecrets(ctx, c, "envstore", "token")
	if err != nil {
		return nil, err
	}
	_, unknown := c.GetSecret(ctx, "nope", "token", nil)
	o["unknownStore"] = statusOf(unknown)
	return o, nil
}

// readSecrets observes GetSecret of `key` and GetBulkSecret of `store`.
func readSecrets(ctx context.Context, c dapr.Client, store, key string) (map[string]any, error) {
	one, err := c.GetSecret(ctx, store, key, nil)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	bulk, err := c.GetBulkSecret(ctx, store, nil)
	if err != nil {
		return nil, fmt.Errorf("bulk get: %w", err)
	}
	return map[string]any{"secret": one, "bulk": bulk}, nil
}
