from agenteval.cli import main

main()
