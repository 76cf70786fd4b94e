"""The server functions (``POST /functions/v1/{name}``): the documents' functions invoked
by name with a bearer token, answered by the same services as the pages."""
