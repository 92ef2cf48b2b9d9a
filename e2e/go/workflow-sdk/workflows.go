package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/dapr/go-sdk/workflow"
)

// The workflows and activities the scenarios run. The SDK registers each under its Go function name, which is
// also the name the scenarios start them by.

var (
	workflows  = []workflow.Workflow{Sequence, ParentOfAutoNamedChild, ParentOfNamedChild, Doubler, AwaitApproval, CatchActivityFailure, LetActivityFailure, AwaitForever, Nap}
	activities = []workflow.Activity{Greet, Double, Explode}
)

// Sequence greets each city in turn: every activity's output is part of the result.
func Sequence(ctx *workflow.WorkflowContext) (any, error) {
	var cities []string
	if err := ctx.GetInput(&cities); err != nil {
		return nil, err
	}
	greetings := []string{}
	for _, city := range cities {
		var greeting string
		if err := ctx.CallActivity(Greet, workflow.ActivityInput(city)).Await(&greeting); err != nil {
			return nil, err
		}
		greetings = append(greetings, greeting)
	}
	return greetings, nil
}

// ChildOutcome is what a parent returns: the child's result and the instance ID the child ran under.
type ChildOutcome struct {
	Value int    `json:"value"`
	ID    string `json:"id"`
}

// ParentOfAutoNamedChild runs one activity (action 0), then a child without an instance ID (action 1), so the
// engine has to name the child itself.
func ParentOfAutoNamedChild(ctx *workflow.WorkflowContext) (any, error) {
	if err := ctx.CallActivity(Greet, workflow.ActivityInput("parent")).Await(nil); err != nil {
		return nil, err
	}
	var child ChildOutcome
	err := ctx.CallChildWorkflow(Doubler, workflow.ChildWorkflowInput(21)).Await(&child)
	return child, err
}

// ParentOfNamedChild runs a child under an instance ID it chooses: its own ID + "-child".
func ParentOfNamedChild(ctx *workflow.WorkflowContext) (any, error) {
	var child ChildOutcome
	err := ctx.CallChildWorkflow(Doubler, workflow.ChildWorkflowInput(5), workflow.ChildWorkflowInstanceID(ctx.InstanceID()+"-child")).Await(&child)
	return child, err
}

// Doubler is the child workflow: it doubles its input through an activity and reports its own instance ID.
func Doubler(ctx *workflow.WorkflowContext) (any, error) {
	var n int
	if err := ctx.GetInput(&n); err != nil {
		return nil, err
	}
	var doubled int
	if err := ctx.CallActivity(Double, workflow.ActivityInput(n)).Await(&doubled); err != nil {
		return nil, err
	}
	return ChildOutcome{Value: doubled, ID: ctx.InstanceID()}, nil
}

// AwaitApproval returns the payload of the "approval" event (a timeout long enough never to fire in a test).
func AwaitApproval(ctx *workflow.WorkflowContext) (any, error) {
	var approval map[string]any
	if err := ctx.WaitForExternalEvent("approval", time.Minute).Await(&approval); err != nil {
		return nil, err
	}
	return map[string]any{"approval": approval}, nil
}

// CatchActivityFailure calls an activity that fails and returns the error the workflow saw.
func CatchActivityFailure(ctx *workflow.WorkflowContext) (any, error) {
	err := ctx.CallActivity(Explode, workflow.ActivityInput("caught")).Await(nil)
	if err == nil {
		return nil, errors.New("the activity did not fail")
	}
	return map[string]string{"caught": err.Error()}, nil
}

// LetActivityFailure does not handle the activity's failure: the workflow fails with it.
func LetActivityFailure(ctx *workflow.WorkflowContext) (any, error) {
	return nil, ctx.CallActivity(Explode, workflow.ActivityInput("uncaught")).Await(nil)
}

// AwaitForever waits for an event nobody sends (no timeout): it ends only by termination, or by the "release"
// event that the suspend scenarios send.
func AwaitForever(ctx *workflow.WorkflowContext) (any, error) {
	var payload any
	err := ctx.WaitForExternalEvent("release", -1).Await(&payload)
	return payload, err
}

// NapResult is how long the workflow's own clock says the timer took.
type NapResult struct {
	SleptMs int64 `json:"sleptMs"`
}

// Nap sleeps on a durable timer of the input's milliseconds.
func Nap(ctx *workflow.WorkflowContext) (any, error) {
	var ms int64
	if err := ctx.GetInput(&ms); err != nil {
		return nil, err
	}
	before := ctx.CurrentUTCDateTime()
	if err := ctx.CreateTimer(time.Duration(ms) * time.Millisecond).Await(nil); err != nil {
		return nil, err
	}
	return NapResult{SleptMs: ctx.CurrentUTCDateTime().Sub(before).Milliseconds()}, nil
}

func Greet(ctx workflow.ActivityContext) (any, error) {
	var name string
	if err := ctx.GetInput(&name); err != nil {
		return nil, err
	}
	return fmt.Sprintf("Hello, %s!", name), nil
}

func Double(ctx workflow.ActivityContext) (any, error) {
	var n int
	if err := ctx.GetInput(&n); err != nil {
		return nil, err
	}
	return 2 * n, nil
}

func Explode(ctx workflow.ActivityContext) (any, error) {
	var label string
	if err := ctx.GetInput(&label); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("boom (%s): the activity failed on purpose", label)
}
