// A pluggable state store written the way Go components are: grpc-go serving Dapr's own generated
// dapr.proto.components.v1 services on a Unix socket, found by gRPC reflection. svcd's tests use it to reach a
// component over Go's HTTP/2 server (its HPACK, flow control and GOAWAY), not only over Node's.
//
// Usage: pluggable-store <socket path>. State lives in memory per component instance (the
// x-component-instance metadata); Init starts an instance afresh. ETags are per-key version numbers; a
// mismatch answers FAILED_PRECONDITION with one BadRequest violation on field "etag", the established
// contract. Keys ending `fail-<text>` (after the sidecar's prefix) answer INTERNAL with that text.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	proto "github.com/dapr/dapr/pkg/proto/components/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
)

type item struct {
	data    []byte
	version int
}

type store struct {
	proto.UnimplementedStateStoreServer
	proto.UnimplementedTransactionalStateStoreServer
	mu        sync.Mutex
	instances map[string]map[string]item
}

func instanceOf(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("x-component-instance"); len(v) > 0 {
		return v[0]
	}
	return ""
}

// items is the instance's map; the caller holds mu.
func (s *store) items(ctx context.Context) map[string]item {
	name := instanceOf(ctx)
	m, ok := s.instances[name]
	if !ok {
		m = map[string]item{}
		s.instances[name] = m
	}
	return m
}

func etagMismatch(key string) error {
	st, err := status.New(codes.FailedPrecondition, "etag mismatch for "+key).WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "etag", Description: "etag mismatch for " + key}},
	})
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return st.Err()
}

func keyError(key string) error {
	if _, text, ok := strings.Cut(key, "fail-"); ok {
		return status.Error(codes.Internal, text)
	}
	return nil
}

func (s *store) Init(ctx context.Context, _ *proto.InitRequest) (*proto.InitResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.instances[instanceOf(ctx)] = map[string]item{}
	return &proto.InitResponse{}, nil
}

func (s *store) Features(context.Context, *proto.FeaturesRequest) (*proto.FeaturesResponse, error) {
	return &proto.FeaturesResponse{Features: []string{"ETAG", "TRANSACTIONAL"}}, nil
}

func (s *store) Ping(context.Context, *proto.PingRequest) (*proto.PingResponse, error) {
	return &proto.PingResponse{}, nil
}

func (s *store) get(ctx context.Context, req *proto.GetRequest) (*proto.GetResponse, error) {
	if err := keyError(req.Key); err != nil {
		return nil, err
	}
	it, ok := s.items(ctx)[req.Key]
	if !ok {
		return &proto.GetResponse{}, nil
	}
	return &proto.GetResponse{Data: it.data, Etag: &proto.Etag{Value: strconv.Itoa(it.version)}}, nil
}

func (s *store) set(ctx context.Context, req *proto.SetRequest) error {
	if err := keyError(req.Key); err != nil {
		return err
	}
	m := s.items(ctx)
	cur := m[req.Key]
	if req.Etag != nil && req.Etag.Value != strconv.Itoa(cur.version) {
		return etagMismatch(req.Key)
	}
	m[req.Key] = item{data: req.Value, version: cur.version + 1}
	return nil
}

func (s *store) del(ctx context.Context, req *proto.DeleteRequest) error {
	m := s.items(ctx)
	cur, ok := m[req.Key]
	if req.Etag != nil && (!ok || req.Etag.Value != strconv.Itoa(cur.version)) {
		return etagMismatch(req.Key)
	}
	delete(m, req.Key)
	return nil
}

func (s *store) Get(ctx context.Context, req *proto.GetRequest) (*proto.GetResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get(ctx, req)
}

func (s *store) Set(ctx context.Context, req *proto.SetRequest) (*proto.SetResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &proto.SetResponse{}, s.set(ctx, req)
}

func (s *store) Delete(ctx context.Context, req *proto.DeleteRequest) (*proto.DeleteResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &proto.DeleteResponse{}, s.del(ctx, req)
}

func (s *store) BulkGet(ctx context.Context, req *proto.BulkGetRequest) (*proto.BulkGetResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &proto.BulkGetResponse{}
	for _, g := range req.Items {
		res, err := s.get(ctx, g)
		if err != nil {
			out.Items = append(out.Items, &proto.BulkStateItem{Key: g.Key, Error: err.Error()})
			continue
		}
		out.Items = append(out.Items, &proto.BulkStateItem{Key: g.Key, Data: res.Data, Etag: res.Etag})
	}
	return out, nil
}

// each applies op to every item in order, stopping at the first error (a bulk write is not a transaction).
func each[T any](s *store, ctx context.Context, items []T, op func(context.Context, T) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, item := range items {
		if err := op(ctx, item); err != nil {
			return err
		}
	}
	return nil
}

func (s *store) BulkSet(ctx context.Context, req *proto.BulkSetRequest) (*proto.BulkSetResponse, error) {
	return &proto.BulkSetResponse{}, each(s, ctx, req.Items, s.set)
}

func (s *store) BulkDelete(ctx context.Context, req *proto.BulkDeleteRequest) (*proto.BulkDeleteResponse, error) {
	return &proto.BulkDeleteResponse{}, each(s, ctx, req.Items, s.del)
}

// Transact applies all operations or none: they run on a copy that replaces the instance's map at the end.
func (s *store) Transact(ctx context.Context, req *proto.TransactionalStateRequest) (*proto.TransactionalStateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := instanceOf(ctx)
	before := s.items(ctx)
	draft := make(map[string]item, len(before))
	for k, v := range before {
		draft[k] = v
	}
	s.instances[name] = draft
	for _, op := range req.Operations {
		var err error
		switch r := op.Request.(type) {
		case *proto.TransactionalStateOperation_Set:
			err = s.set(ctx, r.Set)
		case *proto.TransactionalStateOperation_Delete:
			err = s.del(ctx, r.Delete)
		default:
			err = status.Error(codes.InvalidArgument, "operation is neither set nor delete")
		}
		if err != nil {
			s.instances[name] = before
			return nil, err
		}
	}
	return &proto.TransactionalStateResponse{}, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pluggable-store <socket path>")
		os.Exit(2)
	}
	socket := os.Args[1]
	_ = os.Remove(socket)
	lis, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := grpc.NewServer()
	s := &store{instances: map[string]map[string]item{}}
	proto.RegisterStateStoreServer(server, s)
	proto.RegisterTransactionalStateStoreServer(server, s)
	reflection.Register(server)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		server.GracefulStop()
	}()
	fmt.Println("listening on " + socket)
	if err := server.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
