# Area 4 (model servers): a server echoing the API key and the base_url's query credential raw in its reply
from echo import *
run_echo("m03", lambda k, q: f"your key is {k} and your query token {q}")
