// Package action is the contract between an API operation and the runtime
// that serves it.
//
// An action is a Go type with two methods: Spec, which declares its wire name
// (such as "V1Login"), path, who may call it and its success status, and Run,
// a typed handler that receives decoded, coerced and validated arguments and
// returns a typed result:
//
//	type Echo struct{}
//
//	type EchoArgs struct {
//		Text string `arg:"text" validate:"required,max=64" mod:"trim"`
//	}
//
//	type EchoResult struct {
//		Text string `json:"text"`
//	}
//
//	func (Echo) Spec() action.Spec {
//		return action.Spec{Name: "V1Echo", Path: "/v1/echo", Auth: action.Public}
//	}
//
//	func (Echo) Run(ctx context.Context, req *action.Request, in *EchoArgs) (*EchoResult, error) {
//		return &EchoResult{Text: in.Text}, nil
//	}
//
// This package holds only the declarations. The framework package mounts
// actions on a router, decodes arguments and authenticates callers; it knows
// nothing of any particular action, and this package knows nothing of HTTP
// routing, databases or owner types beyond their names.
package action
