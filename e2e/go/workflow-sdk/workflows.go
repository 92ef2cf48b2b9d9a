package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/dapr/go-sdk/workflow"
	"github.com/microsoft/durabletask-go/task"
)

// The workflows and activities the scenarios run. The SDK registers each under its Go function name, which is
// also the name the scenarios start them by.

var (
	workflows = []workflow.Workflow{
		Sequence, ParentOfAutoNamedChild, ParentOfNamedChild, ParentOfTwelfthActionChild, ParentOfInvalidChild, Doubler,
		AwaitApproval, CatchActivityFailure, LetActivityFailure, AwaitForever, GreetWhenReleased, Nap,
	}
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

// ParentOfTwelfthActionChild schedules eleven activities at once (actions 0 to 10), then a child without an
// instance ID (action 11, "000b" in 4 hex digits): the engine names the child after that action id.
func ParentOfTwelfthActionChild(ctx *workflow.WorkflowContext) (any, error) {
	greetings := workflow.NewTaskSlice(11)
	for i := range greetings {
		greetings[i] = ctx.CallActivity(Greet, workflow.ActivityInput(fmt.Sprintf("guest %d", i)))
	}
	for _, greeting := range greetings {
		if err := greeting.Await(nil); err != nil {
			return nil, err
		}
	}
	var child ChildOutcome
	err := ctx.CallChildWorkflow(Doubler, workflow.ChildWorkflowInput(6)).Await(&child)
	return child, err
}

// InvalidChildID is an instance ID the engine must refuse for a child: "/" is not allowed in instance IDs.
const InvalidChildID = "bad/id"

// ParentOfInvalidChild asks for a child under InvalidChildID and returns the error its child task failed with.
func ParentOfInvalidChild(ctx *workflow.WorkflowContext) (any, error) {
	err := ctx.CallChildWorkflow(Doubler, workflow.ChildWorkflowInput(1), workflow.ChildWorkflowInstanceID(InvalidChildID)).Await(nil)
	if err == nil {
		return nil, fmt.Errorf("the child %q was started", InvalidChildID)
	}
	return map[string]string{"caught": err.Error()}, nil
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

// Release is GreetWhenReleased's input: whom to greet, and how long to wait for the "release" event at most.
type Release struct {
	Name   string `json:"name"`
	WaitMs int64  `json:"waitMs"`
}

// Released is GreetWhenReleased's output: the greeting, and whether the "event" or the "timeout" released it.
type Released struct {
	Greeting string `json:"greeting"`
	By       string `json:"by"`
}

// GreetWhenReleased waits for the "release" event (or its timeout), then greets its input's name through an
// activity. The output tells which run produced it (the name) and what ended the wait.
func GreetWhenReleased(ctx *workflow.WorkflowContext) (any, error) {
	var in Release
	if err := ctx.GetInput(&in); err != nil {
		return nil, err
	}
	by := "event"
	if err := ctx.WaitForExternalEvent("release", time.Duration(in.WaitMs)*time.Millisecond).Await(nil); errors.Is(err, task.ErrTaskCanceled) {
		by = "timeout"
	} else if err != nil {
		return nil, err
	}
	var greeting string
	if err := ctx.CallActivity(Greet, workflow.ActivityInput(in.Name)).Await(&greeting); err != nil {
		return nil, err
	}
	return Released{Greeting: greeting, By: by}, nil
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
