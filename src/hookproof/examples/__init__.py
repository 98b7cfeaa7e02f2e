"""Example agents shipped with hookproof, so the CLI and users' tests can run them."""
