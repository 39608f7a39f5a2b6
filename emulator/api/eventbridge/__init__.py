"""The EventBridge APIs Eddy answers itself: Pipes (pipes_api.py)."""
