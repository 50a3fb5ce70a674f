"""Runtime shared by every service: bus, gRPC server, embedded NATS, settings, telemetry."""
