package main

import (
	"context"
	"fmt"

	dapr "github.com/dapr/go-sdk/client"
)

// lockStep contends for <run>-resource in "lockstore" (lock.redis) as two owners, one call after the other: each
// answer is observed under the call's name.
func lockStep(ctx context.Context, c dapr.Client, run string) (map[string]any, error) {
	resource := run + "-resource"
	lock := func(owner string) (any, error) {
		r, err := c.TryLockAlpha1(ctx, "lockstore", &dapr.LockRequest{ResourceID: resource, LockOwner: owner, ExpiryInSeconds: 30})
		if err != nil {
			return nil, err
		}
		return r.Success, nil
	}
	unlock := func(owner string) (any, error) {
		r, err := c.UnlockAlpha1(ctx, "lockstore", &dapr.UnlockRequest{ResourceID: resource, LockOwner: owner})
		if err != nil {
			return nil, err
		}
		return fmt.Sprintf("%s(%d)", r.Status, r.StatusCode), nil
	}
	calls := []struct {
		name  string
		call  func(string) (any, error)
		owner string
	}{
		{"first", lock, "owner-1"},
		{"second", lock, "owner-2"},
		{"unlockByOther", unlock, "owner-2"},
		{"unlockByHolder", unlock, "owner-1"},
		{"unlockAgain", unlock, "owner-1"},
		{"secondAfterUnlock", lock, "owner-2"},
	}
	o := map[string]any{}
	for _, call := range calls {
		answer, err := call.call(call.owner)
		if err != nil {
			return o, fmt.Errorf("%s (%s): %w", call.name, call.owner, err)
		}
		o[call.name] = answer
	}
	_, unknown := c.TryLockAlpha1(ctx, "nostore", &dapr.LockRequest{ResourceID: resource, LockOwner: "owner-1", ExpiryInSeconds: 30})
	o["unknownStore"] = statusOf(unknown)
	return o, nil
}
