"""moto's EventBridge as Eddy reaches into it: rules.py (each rule's matched events handed to Eddy), patterns.py
(its event-pattern operators, for Lambda's FilterCriteria)."""
