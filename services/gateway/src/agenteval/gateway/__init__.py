"""The front door: one gRPC address for clients, routing every RPC to the service that serves it."""
