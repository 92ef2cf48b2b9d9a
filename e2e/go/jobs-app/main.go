// Command jobs-app is a Go app on the Dapr Go SDK using the jobs API through svcd, unchanged, as a Go app would.
//
// `serve <port> <job name>...` is the app: a go-sdk gRPC service (service/grpc) with a job event handler for each
// name, printing one JSON line per firing it receives: {"step":"job-event","observed":{"name","data"}} (data: the
// Any's value bytes, base64 as Go's JSON writes []byte). Its first line, once it listens, is {"step":"serving"}.
//
// `client <schedule|get|delete> -name <job> [flags]` is a client of its sidecar (github.com/dapr/go-sdk/client,
// which finds it by DAPR_GRPC_PORT): ScheduleJobAlpha1, GetJobAlpha1 or DeleteJobAlpha1, printing one JSON line
// with what it got back, or its error and gRPC status code (exit status 1).
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	dapr "github.com/dapr/go-sdk/client"
	"github.com/dapr/go-sdk/service/common"
	daprd "github.com/dapr/go-sdk/service/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

func main() {
	// stdout is for JSON lines only: the SDK's client logs its start with its own logger, and its GetJobAlpha1 logs
	// the answer with the standard one.
	log.SetOutput(os.Stderr)
	dapr.SetLogger(log.New(os.Stderr, "", log.LstdFlags))
	if len(os.Args) < 2 {
		log.Fatal("usage: jobs-app serve <port> <job name>... | jobs-app client <schedule|get|delete> -name <job> [flags]")
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "client":
		if len(os.Args) < 3 {
			log.Fatal("usage: jobs-app client <schedule|get|delete> -name <job> [flags]")
		}
		if !runClient(os.Args[2], os.Args[3:]) {
			os.Exit(1)
		}
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}

func printLine(line map[string]any) {
	out, err := json.Marshal(line)
	if err != nil {
		log.Fatalf("encoding a line: %v", err)
	}
	fmt.Println(string(out))
}

func serve(args []string) {
	if len(args) < 1 {
		log.Fatal("usage: jobs-app serve <port> <job name>...")
	}
	s, err := daprd.NewService("127.0.0.1:" + args[0])
	if err != nil {
		log.Fatalf("listening: %v", err)
	}
	for _, name := range args[1:] {
		err := s.AddJobEventHandler(name, func(_ context.Context, e *common.JobEvent) error {
			printLine(map[string]any{"step": "job-event", "observed": map[string]any{"name": e.JobType, "data": e.Data}})
			return nil
		})
		if err != nil {
			log.Fatalf("adding the handler of job %s: %v", name, err)
		}
	}
	printLine(map[string]any{"step": "serving", "observed": map[string]any{}})
	if err := s.Start(); err != nil {
		log.Fatalf("serving: %v", err)
	}
}

// runClient runs one client step and prints its line; false when the call failed.
func runClient(step string, args []string) bool {
	flags := flag.NewFlagSet(step, flag.ExitOnError)
	name := flags.String("name", "", "the job's name")
	schedule := flags.String("schedule", "", "schedule: its cron expression or @every")
	repeats := flags.Uint("repeats", 0, "schedule: how many times it fires (0: not set)")
	dueTime := flags.String("due-time", "", "schedule: when it first fires")
	ttl := flags.String("ttl", "", "schedule: when it expires")
	typeURL := flags.String("type-url", "", "schedule: the data's type URL (none: no data)")
	dataBase64 := flags.String("data-base64", "", "schedule: the data's value bytes, base64")
	_ = flags.Parse(args) // ExitOnError: a bad flag ends the program
	c := sidecar()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var observed map[string]any
	var err error
	switch step {
	case "schedule":
		job := &dapr.Job{Name: *name, Schedule: *schedule, Repeats: uint32(*repeats), DueTime: *dueTime, TTL: *ttl}
		if *typeURL != "" {
			value, decodeErr := base64.StdEncoding.DecodeString(*dataBase64)
			if decodeErr != nil {
				log.Fatalf("-data-base64: %v", decodeErr)
			}
			job.Data = &anypb.Any{TypeUrl: *typeURL, Value: value}
		}
		err = c.ScheduleJobAlpha1(ctx, job)
	case "get":
		var job *dapr.Job
		job, err = c.GetJobAlpha1(ctx, *name)
		if err == nil {
			observed = jobObserved(job)
		}
	case "delete":
		err = c.DeleteJobAlpha1(ctx, *name)
	default:
		log.Fatalf("unknown client step %q", step)
	}
	line := map[string]any{"step": step, "observed": observed}
	if err != nil {
		line["error"] = err.Error()
		line["observed"] = statusOf(err)
	}
	printLine(line)
	return err == nil
}

// sidecar is the SDK's client of this app's sidecar, found as a Dapr app finds it (DAPR_GRPC_PORT).
func sidecar() dapr.Client {
	c, err := dapr.NewClient()
	if err != nil {
		log.Fatalf("creating the client: %v", err)
	}
	return c
}

// jobObserved is the job as the SDK handed it back; data as its type URL and value bytes (base64).
func jobObserved(job *dapr.Job) map[string]any {
	observed := map[string]any{"name": job.Name, "schedule": job.Schedule, "repeats": job.Repeats, "dueTime": job.DueTime, "ttl": job.TTL}
	if job.Data != nil {
		observed["data"] = map[string]any{"typeUrl": job.Data.GetTypeUrl(), "value": job.Data.GetValue()}
	}
	return observed
}

// statusOf is a failed call's gRPC status: its code's name (as grpc-go spells it, e.g. NotFound) and message.
func statusOf(err error) map[string]any {
	s, ok := status.FromError(err)
	if !ok {
		return map[string]any{"code": "not a gRPC status", "message": err.Error()}
	}
	return map[string]any{"code": s.Code().String(), "message": strings.TrimSpace(s.Message())}
}
