// Command blocks-client calls svcd's secrets, configuration and distributed lock APIs through the Dapr Go SDK client
// (github.com/dapr/go-sdk/client), as a Go app would. It finds the sidecar as a Dapr app does (DAPR_GRPC_PORT) and
// prints one JSON line per step: what it observed, or its error. Its one argument names this run's configuration
// keys and lock resource (<run>-get, <run>-sub, <run>-resource), so runs never share them.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	dapr "github.com/dapr/go-sdk/client"
	"google.golang.org/grpc/status"
)

type step struct {
	name string
	run  func(ctx context.Context, c dapr.Client, run string) (map[string]any, error)
}

var steps = []step{
	{"secrets", secretsStep},
	{"configuration-get", configurationGetStep},
	{"configuration-subscribe", configurationSubscribeStep},
	{"lock", lockStep},
}

func main() {
	if len(os.Args) != 2 {
		log.Fatalf("usage: blocks-client <run>")
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
	for _, s := range steps {
		observed, err := s.run(ctx, c, os.Args[1])
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

// statusOf is the gRPC code and message of an error, or its text when the SDK kept only that ("" for none).
func statusOf(err error) string {
	if err == nil {
		return ""
	}
	if s, ok := status.FromError(err); ok {
		return s.Code().String() + ": " + s.Message()
	}
	return err.Error()
}
