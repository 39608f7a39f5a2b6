"""The processes Eddy starts: children.py starts each so that it dies with its parent."""
