"""The generated Snowball stemmers (one module per algorithm, written by ``python -m stemgen``) and their runtime."""
