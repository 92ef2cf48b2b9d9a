// Command invoke-client calls other apps through svcd with the Dapr Go SDK client (github.com/dapr/go-sdk/client),
// as a Go app would: InvokeMethod, InvokeMethodWithContent, and a gRPC service of another app reached by gRPC
// proxying (plain grpc-go with `dapr-app-id` metadata). It finds the sidecar as a Dapr app does (DAPR_GRPC_PORT)
// and prints one JSON line per step: what it observed, or its error.
//
// With `-serve-health <port>` it is instead the called app: a gRPC server with the standard health service.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"time"

	dapr "github.com/dapr/go-sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func main() {
	target := flag.String("target", "", "app id of the HTTP app to invoke")
	proxyApp := flag.String("proxy-app", "", "app id of the gRPC app to reach by proxying (none: skip)")
	serveHealth := flag.Int("serve-health", 0, "be the called gRPC app on this port")
	flag.Parse()
	if *serveHealth != 0 {
		serve(*serveHealth)
		return
	}
	dapr.SetLogger(log.New(os.Stderr, "", log.LstdFlags))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dapr.NewClient()
	if err != nil {
		log.Fatalf("creating the client: %v", err)
	}
	defer c.Close()
	failed := false
	report := func(name string, observed map[string]any, err error) {
		line := map[string]any{"step": name, "observed": observed}
		if err != nil {
			line["error"] = err.Error()
			failed = true
		}
		out, _ := json.Marshal(line)
		fmt.Println(string(out))
	}
	got, err := c.InvokeMethod(ctx, *target, "ping", "get")
	report("invoke-get", map[string]any{"body": string(got)}, err)
	got, err = c.InvokeMethodWithContent(ctx, *target, "greet", "post", &dapr.DataContent{ContentType: "application/json", Data: []byte(`{"name":"go"}`)})
	report("invoke-post", map[string]any{"body": string(got)}, err)
	_, err = c.InvokeMethod(ctx, "nobody-serves-this", "ping", "get")
	report("invoke-unknown", map[string]any{"status": statusOf(err)}, nil)
	if *proxyApp != "" {
		res, err := proxiedHealth(ctx, *proxyApp)
		report("proxy-health", map[string]any{"status": res}, err)
	}
	if failed {
		os.Exit(1)
	}
}

// proxiedHealth calls grpc.health.v1.Health/Check of another app through this app's sidecar.
func proxiedHealth(ctx context.Context, app string) (string, error) {
	conn, err := grpc.NewClient("127.0.0.1:"+os.Getenv("DAPR_GRPC_PORT"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	res, err := healthpb.NewHealthClient(conn).Check(metadata.AppendToOutgoingContext(ctx, "dapr-app-id", app), &healthpb.HealthCheckRequest{})
	if err != nil {
		return statusOf(err), err
	}
	return res.Status.String(), nil
}

func serve(port int) {
	lis, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		log.Fatalf("listening: %v", err)
	}
	s := grpc.NewServer()
	healthpb.RegisterHealthServer(s, health.NewServer())
	fmt.Println(`{"step":"serving","observed":{}}`)
	if err := s.Serve(lis); err != nil {
		log.Fatalf("serving: %v", err)
	}
}

func statusOf(err error) string {
	if err == nil {
		return "OK"
	}
	if s, ok := status.FromError(err); ok {
		return s.Code().String() + ": " + s.Message()
	}
	return err.Error()
}
