"""The suite store: suites, their cases and immutable, content-addressed versions (SuiteService)."""
