"""Record real model exchanges once, replay them offline: cassettes.

``Cassette(path, record_mode=...)`` holds one test's exchanges in one readable, versioned
JSON file; ``cassette.wrap(model)`` puts a LangChain chat model, a hookproof ChatModel or an
Eino-style model behind it. Each call is matched by its FinalRequest (rendered as a
snapshot, after the matchers) and its order; a changed request fails with the semantic
diff. Record modes are vcrpy's: ``none`` (replay only, the default), ``once``,
``new_episodes``, ``all``. Everything written is redacted first (``hookproof.redaction``).
The pytest plugin gives each test its cassette as the ``hookproof_cassette`` fixture.
"""

from hookproof.recording._cassette import Cassette
from hookproof.recording._format import FORMAT_VERSION, Exchange
from hookproof.recording._modes import RecordMode
from hookproof.recording._paths import cassette_path

__all__ = ["FORMAT_VERSION", "Cassette", "Exchange", "RecordMode", "cassette_path"]
