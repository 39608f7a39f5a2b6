"""CloudFormation, Eddy's own: templates, parameters, intrinsic functions, the order of resources, stacks' operations
and change sets; each resource made through Eddy's own APIs (resource_types/), so a function or mapping a stack
makes is one Eddy runs."""
