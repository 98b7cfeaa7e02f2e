"""The source article's 20 contracts on the deep-agent harness (defined in the package, so
``hookproof check`` can run them anywhere)."""

from hookproof.examples.contracts.test_article_contracts import *  # noqa: F403
