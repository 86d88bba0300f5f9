"""One module per problem; each calls `register(Problem(...))` at import."""
