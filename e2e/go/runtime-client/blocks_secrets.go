package main

import (
	"context"

	dapr "github.com/dapr/go-sdk/client"
)

// secretsFileStep reads "filestore" (secretstores.local.file, nested keys joined by ":"), whose "db:password" the
// Configuration's secret scope denies to the app.
func secretsFileStep(ctx context.Context, c dapr.Client) (map[string]any, error) {
	o, err := readSecrets(ctx, c, "filestore", "api:key")
	if err != nil {
		return nil, err
	}
	_, missing := c.GetSecret(ctx, "filestore", "nope", nil)
	_, denied := c.GetSecret(ctx, "filestore", "db:password", nil)
	_, unknown := c.GetBulkSecret(ctx, "nostore", nil)
	o["missingKey"], o["denied"], o["unknownStore"] = statusOf(missing), statusOf(denied), statusOf(unknown)
	return o, nil
}
