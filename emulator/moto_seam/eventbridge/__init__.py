"""moto's EventBridge as Eddy reaches into it: rules.py (each rule's matched events handed to Eddy)."""
