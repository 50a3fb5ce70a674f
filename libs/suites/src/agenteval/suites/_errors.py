"""The one error of this package."""

from agenteval.contracts.errors import InvalidArgument


class SuiteError(InvalidArgument):
    """A suite that cannot be used, with where and why."""
