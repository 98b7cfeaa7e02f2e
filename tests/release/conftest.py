from tests.release.forge import forge

__all__ = ["forge"]
