package main

import (
	"context"

	dapr "github.com/dapr/go-sdk/client"
)

// blockSteps are the secrets, configuration and lock steps. `run` names this run's configuration keys and lock
// resource (<run>-get, <run>-sub, <run>-resource), so runs never share them.
func blockSteps(run string) []step {
	withRun := func(f func(context.Context, dapr.Client, string) (map[string]any, error)) func(context.Context, dapr.Client) (map[string]any, error) {
		return func(ctx context.Context, c dapr.Client) (map[string]any, error) { return f(ctx, c, run) }
	}
	return []step{
		{"secrets-file", secretsFileStep},
		{"configuration-get", withRun(configurationGetStep)},
		{"configuration-subscribe", withRun(configurationSubscribeStep)},
		{"lock", withRun(lockStep)},
	}
}
