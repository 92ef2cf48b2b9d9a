module svc.local/e2e/pluggable-store

go 1.22.6

require (
	github.com/dapr/dapr v1.14.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240624140628-dc46fd24d27d
	google.golang.org/grpc v1.65.0
)

require (
	golang.org/x/net v0.26.0 // indirect
	golang.org/x/sys v0.21.0 // indirect
	golang.org/x/text v0.16.0 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
)
