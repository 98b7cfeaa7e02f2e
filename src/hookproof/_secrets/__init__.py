"""Secret detection below hookproof.errors: the built-in field names and patterns, and the
redaction installed for the process. Every hookproof error redacts its message with it, and
hookproof.redaction (which raises hookproof errors) builds on it, so it imports neither."""
