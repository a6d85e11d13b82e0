"""The names the benchmark's manifests forbid: real names, found in both real corpora.

Chosen once, not at run time, so that every machine benchmarks the same manifests: from a
stdlib-``ast`` count over the standard library and site-packages of the Python 3.11 machine the
benchmark was written on.

* ``SUBSTRINGS``: identifiers (7+ characters, no dunders, none inside a keyword) seen in 8 to
  150 standard-library files and 8 to 600 site-packages files, the 20 most common left out,
  none a substring of another; ``tempfile`` first.
* ``QUALIFIED``: ``module.name`` pairs of the standard library, imported or used as an
  attribute of an imported module in at least 5 files of each corpus, most common first;
  ``__future__`` and prefixes of other entries (``os.path``) left out; ``subprocess.Popen``
  first.  A few are modules (``urllib.parse``): the pattern then covers all of their names.

A manifest of N rules forbids the first N names of a list, one rule each.
"""

from __future__ import annotations

_SUBSTRINGS = """
tempfile pattern setdefault frozenset results basename functools NotImplemented catch_warnings
verbose partial subprocess callable itertools bytearray instance version_info BytesIO executable
datetime readline logging contextlib inspect timeout Iterable complex partition simplefilter
wrapper textwrap maxsize BaseException content headers collections ZeroDivisionError deepcopy
response Sequence request operator OverflowError children reverse filenames callback getLogger
Optional traceback fullname SyntaxError Mapping handler exc_info defaultdict KeyboardInterrupt
Iterator splitext FileNotFoundError function aliases listdir ModuleType RuntimeWarning transform
NameError UnicodeEncodeError iterable product module_name weakref OrderedDict memoryview
namedtuple TypeVar abstractmethod metadata mapping indices release command namespace sysconfig
normpath fromkeys element mkdtemp connect signature keywords filterwarnings builtins
UnicodeDecodeError parameters template lru_cache resource SystemExit protocol decorator discard
translate timedelta expanduser EOFError UserWarning filters test_basic optimize findall makedirs
matches parse_args distribution Generator Protocol MULTILINE dispatch IGNORECASE ABCMeta
add_argument validate package pathlib dry_run Generic randint password exc_type pathsep isdigit
normalize finalize_options attributes requires modname get_config_var argparse realpath address
UnicodeError ArgumentParser LookupError VERBOSE convert _getframe category sources defaults
current Command location test_repr wrapped communicate find_spec HIGHEST_PROTOCOL directory
itemsize skipTest methods check_output execute FunctionType position tokenize strftime func_name
initialize_options manager read_text normcase Decimal user_options TemporaryDirectory timezone
SOCK_STREAM st_mode section payload missing original shuffle flatten truncate is_file joinpath
PathLike ascii_letters co_filename file_path comment condition method_name doctest shutdown
arguments suppress to_bytes
"""

_QUALIFIED = """
subprocess.Popen typing.Any unittest.TestCase re.compile warnings.warn sys.platform os.environ
typing.Optional sys.modules re.match sys.stdout unittest.skipUnless warnings.catch_warnings
sys.stderr unittest.main sys.version_info typing.Union typing.Callable json.loads sys.executable
textwrap.dedent io.BytesIO abc.abstractmethod unittest.skipIf logging.getLogger typing.List
warnings.simplefilter socket.socket pathlib.Path sys.argv typing.TypeVar os.name subprocess.PIPE
sys.path typing.Tuple time.time warnings.filterwarnings urllib.parse os.close pickle.loads
contextlib.contextmanager pickle.dumps io.StringIO unittest.mock.Mock sys.maxsize copy.deepcopy
typing.Iterable functools.partial array.array os.sep typing.Dict re.search copy.copy
collections.abc.Iterable re.escape time.sleep re.sub asyncio.sleep struct.pack gc.collect
threading.Thread types.ModuleType sys.exc_info os.stat collections.defaultdict zipfile.ZipFile
inspect.signature os.mkdir pickle.HIGHEST_PROTOCOL os.getcwd dataclasses.dataclass
typing.Literal itertools.product itertools.chain re.I urllib.request os.listdir re.MULTILINE
typing.Sequence sys.getrefcount sys.exit re.IGNORECASE functools.wraps os.remove weakref.ref
os.unlink inspect.Parameter math.sqrt datetime.timedelta os.chdir typing.Iterator typing.Mapping
sys.stdin enum.Enum socket.AF_INET ast.Name collections.deque socket.SOCK_STREAM typing.Type
collections.OrderedDict shutil.rmtree ast.parse os.makedirs pprint.pformat importlib.util
abc.ABC math.isnan datetime.timezone.utc struct.unpack functools.lru_cache sys.flags
ipaddress.ip_network time.monotonic typing.Generic math.pi os.symlink abc.ABCMeta os.open
tempfile.mkdtemp os.PathLike math.log collections.namedtuple re.VERBOSE tarfile.open
argparse.ArgumentParser importlib.import_module distutils.log.info math.inf
datetime.datetime.now os.curdir ast.Constant os.chmod os.fspath signal.signal threading.Event
threading.Lock os.getenv sys._getframe signal.SIGINT os.pathsep re.DOTALL functools.reduce
math.pow typing.Set ipaddress.ip_address sqlite3.connect xml.dom re.fullmatch codecs.CodecInfo
os.getpid subprocess.check_output typing.ClassVar unittest.mock.patch.object datetime.date
math.ceil random.random types.MethodType glob.glob typing.NoReturn math.isclose os.linesep
types.GenericAlias logging.Formatter os.rmdir sys.settrace sysconfig.get_config_var struct.error
sys.implementation sys.version itertools.combinations os.path.join subprocess.run
struct.calcsize typing.Generator decimal.Decimal types.FunctionType inspect.isclass
ipaddress.IPv4Network os.write ast.Load base64.b64encode re.findall tempfile.TemporaryDirectory
platform.system os.pipe random.randrange ast.literal_eval distutils.log.debug sys.prefix
re.Pattern string.digits ctypes.POINTER tempfile.NamedTemporaryFile typing.Protocol os.read
collections.Counter contextlib.suppress importlib.machinery itertools.count sys.byteorder
"""

SUBSTRINGS: tuple[str, ...] = tuple(_SUBSTRINGS.split())
QUALIFIED: tuple[str, ...] = tuple(_QUALIFIED.split())
