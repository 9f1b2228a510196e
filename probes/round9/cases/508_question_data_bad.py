# area 5: a question's data: question is a number, images a string, correct null
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("question_data_bad", "update questions set data=json_set(data,'$.question',5,'$.images','x','$.correct',json('null'))")
