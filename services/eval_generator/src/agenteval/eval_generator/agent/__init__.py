"""The generation agent: Claude with tools writes and tests an eval function (``loop``), from
its instructions (``prompt``), through tools that read the training split only and test code
in the sandbox (``tools``, ``sources``)."""
