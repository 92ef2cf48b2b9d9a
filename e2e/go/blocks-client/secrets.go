package main

import (
	"context"
	"fmt"

	dapr "github.com/dapr/go-sdk/client"
)

// secretsStep reads "filestore" (secretstores.local.file, nested keys joined by ":"), whose "db:password" the
// Configuration's secret scope denies to the app.
func secretsStep(ctx context.Context, c dapr.Client, _ string) (map[string]any, error) {
	one, err := c.GetSecret(ctx, "filestore", "api:key", nil)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	bulk, err := c.GetBulkSecret(ctx, "filestore", nil)
	if err != nil {
		return nil, fmt.Errorf("bulk get: %w", err)
	}
	_, missing := c.GetSecret(ctx, "filestore", "nope", nil)
	_, denied := c.GetSecret(ctx, "filestore", "db:password", nil)
	_, unknown := c.GetBulkSecret(ctx, "nostore", nil)
	return map[string]any{"secret": one, "bulk": bulk, "missingKey": statusOf(missing), "denied": statusOf(denied), "unknownStore": statusOf(unknown)}, nil
}
