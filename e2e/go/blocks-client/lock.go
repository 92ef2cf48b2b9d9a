package main

import (
	"context"
	"fmt"

	dapr "github.com/dapr/go-sdk/client"
)

// lockStep contends for <run>-resource in "lockstore" (lock.redis) as two owners.
func lockStep(ctx context.Context, c dapr.Client, run string) (map[string]any, error) {
	resource := run + "-resource"
	lock := func(owner string) (bool, error) {
		r, err := c.TryLockAlpha1(ctx, "lockstore", &dapr.LockRequest{ResourceID: resource, LockOwner: owner, ExpiryInSeconds: 30})
		if err != nil {
			return false, fmt.Errorf("lock as %s: %w", owner, err)
		}
		return r.Success, nil
	}
	unlock := func(owner string) (string, error) {
		r, err := c.UnlockAlpha1(ctx, "lockstore", &dapr.UnlockRequest{ResourceID: resource, LockOwner: owner})
		if err != nil {
			return "", fmt.Errorf("unlock as %s: %w", owner, err)
		}
		return fmt.Sprintf("%s(%d)", r.Status, r.StatusCode), nil
	}
	o := map[string]any{}
	var err error
	if o["first"], err = lock("owner-1"); err != nil {
		return nil, err
	}
	if o["second"], err = lock("owner-2"); err != nil {
		return nil, err
	}
	if o["unlockByOther"], err = unlock("owner-2"); err != nil {
		return nil, err
	}
	if o["unlockByHolder"], err = unlock("owner-1"); err != nil {
		return nil, err
	}
	if o["unlockAgain"], err = unlock("owner-1"); err != nil {
		return nil, err
	}
	if o["secondAfterUnlock"], err = lock("owner-2"); err != nil {
		return nil, err
	}
	_, unknown := c.TryLockAlpha1(ctx, "nostore", &dapr.LockRequest{ResourceID: resource, LockOwner: "owner-1", ExpiryInSeconds: 30})
	o["unknownStore"] = statusOf(unknown)
	return o, nil
}
