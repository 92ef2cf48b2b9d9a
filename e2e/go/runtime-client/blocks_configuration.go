package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	dapr "github.com/dapr/go-sdk/client"
)

// configurationGetStep reads <run>-get, which the test set to "blue||v1", and a key that does not exist.
func configurationGetStep(ctx context.Context, c dapr.Client, run string) (map[string]any, error) {
	items, err := c.GetConfigurationItems(ctx, "configstore", []string{run + "-get", run + "-absent"})
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	got := map[string]any{}
	for k, v := range items {
		got[k] = map[string]string{"value": v.Value, "version": v.Version}
	}
	_, unknown := c.GetConfigurationItems(ctx, "nostore", []string{run + "-get"})
	return map[string]any{"items": got, "unknownStore": statusOf(unknown)}, nil
}

// configurationSubscribeStep subscribes to <run>-sub, which the test keeps setting to "updated||v<n>" while this
// program runs: an update must arrive, and none once UnsubscribeConfigurationItems has returned.
func configurationSubscribeStep(ctx context.Context, c dapr.Client, run string) (map[string]any, error) {
	var mu sync.Mutex
	var received []string
	unsubscribed := false
	afterUnsubscribe := 0
	first := make(chan struct{})
	var firstOnce sync.Once
	id, err := c.SubscribeConfigurationItems(ctx, "configstore", []string{run + "-sub"}, func(_ string, items map[string]*dapr.ConfigurationItem) {
		mu.Lock()
		defer mu.Unlock()
		if unsubscribed {
			afterUnsubscribe++
			return
		}
		for k, v := range items {
			received = append(received, k+"="+v.Value)
		}
		firstOnce.Do(func() { close(first) })
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		return map[string]any{"id": id}, fmt.Errorf("no update within 20 s")
	}
	if err := c.UnsubscribeConfigurationItems(ctx, "configstore", id); err != nil {
		return nil, fmt.Errorf("unsubscribe: %w", err)
	}
	// An update svcd sent just before the unsubscribe may still be on its way: counted from a moment later.
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	unsubscribed = true
	mu.Unlock()
	time.Sleep(1500 * time.Millisecond) // the test keeps writing the key meanwhile
	unknownID := c.UnsubscribeConfigurationItems(ctx, "configstore", "no-such-id")
	mu.Lock()
	defer mu.Unlock()
	return map[string]any{"idSet": id != "", "first": received[0], "afterUnsubscribe": afterUnsubscribe, "unknownID": statusOf(unknownID)}, nil
}
