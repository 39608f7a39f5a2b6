"""SNS's requests Eddy answers before moto: the links in its notifications (links.py)."""
