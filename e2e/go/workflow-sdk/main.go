// Command workflow-sdk runs workflows through the Dapr Go SDK (github.com/dapr/go-sdk/workflow) against a
// sidecar: it registers the workflows and activities of workflows.go, runs every scenario of scenarios.go at once
// and prints one JSON line per scenario to stdout. The SDK finds the sidecar as a Dapr app would:
// DAPR_GRPC_ENDPOINT or DAPR_GRPC_PORT, and DAPR_API_TOKEN. Logs go to stderr. The exit status is 1 when a
// scenario could not run to its end (its line carries the error).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	dapr "github.com/dapr/go-sdk/client"
	"github.com/dapr/go-sdk/workflow"
)

func main() {
	timeout := flag.Duration("scenario-timeout", 20*time.Second, "how long one scenario may take")
	flag.Parse()
	// The SDK's client logs to stdout by default; stdout is for the results alone.
	dapr.SetLogger(log.New(os.Stderr, "", log.LstdFlags))

	worker, err := workflow.NewWorker()
	if err != nil {
		log.Fatalf("creating the worker: %v", err)
	}
	for _, w := range workflows {
		if err := worker.RegisterWorkflow(w); err != nil {
			log.Fatalf("registering a workflow: %v", err)
		}
	}
	for _, a := range activities {
		if err := worker.RegisterActivity(a); err != nil {
			log.Fatalf("registering an activity: %v", err)
		}
	}
	if err := worker.Start(); err != nil {
		log.Fatalf("starting the worker: %v", err)
	}
	client, err := workflow.NewClient()
	if err != nil {
		log.Fatalf("creating the client: %v", err)
	}

	failed := runAll(client, *timeout)
	// The worker and the client share the SDK's one connection: shutting the worker down closes it.
	if err := worker.Shutdown(); err != nil {
		log.Printf("shutting the worker down: %v", err)
	}
	if failed {
		os.Exit(1)
	}
}

// runAll runs the scenarios concurrently, printing each one's line as it ends; true if any of them failed.
func runAll(client *workflow.Client, timeout time.Duration) bool {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed bool
	)
	for _, s := range scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			seen, err := s.run(ctx, client)
			line := map[string]any{"scenario": s.name, "observed": seen}
			if err != nil {
				line["error"] = err.Error()
			}
			text, marshalErr := json.Marshal(line)
			if marshalErr != nil {
				text, _ = json.Marshal(map[string]string{"scenario": s.name, "error": "reporting: " + marshalErr.Error()})
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Println(string(text))
			failed = failed || err != nil || marshalErr != nil
		}()
	}
	wg.Wait()
	return failed
}
