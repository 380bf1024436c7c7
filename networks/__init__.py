"""Networks: Haiku modules turned into pure functions by hk.transform."""

import environments

# The release (`environments.__version__`, setup.py's).
__version__ = environments.__version__
