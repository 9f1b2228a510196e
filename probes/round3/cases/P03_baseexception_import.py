# Area 6 (plugins): a plugin raising a custom BaseException subclass at import
from plugins import *
check_plugin("p03", HEAD + r'''
class Boom(BaseException):
    pass
raise Boom('plugin import')
''')
