# area 5: identity's options hold rounds='three' and seed 1e400
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("identity_options_types", "update meta set value=json_set(value,'$.options.rounds','three','$.seed',1e308*10) where key='identity'")
