"""``python -m agenteval.gateway``: the front door alone, routes from ``AGENTEVAL_GATEWAY_*``."""

from agenteval.gateway.app import main

if __name__ == "__main__":
    main()
