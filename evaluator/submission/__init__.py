"""What a participant hands in and how it is trusted: keys, the JWE envelope, metadata.json,
identities, validation of predictions, and sealing a submission folder."""
