"""Generated protobuf and gRPC code (make proto). Do not edit."""
