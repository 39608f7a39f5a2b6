"""Parts of the Lambda API's function operations (api/lambda_/door.py serves CreateFunction, ListFunctions,
UpdateFunctionConfiguration and UpdateFunctionCode): parameters.py reads and refuses a function's parameters in
Lambda's words before the function is made or changed."""
