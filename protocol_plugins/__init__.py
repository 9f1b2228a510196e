"""Built-in protocols, one module each (the two derived from debate share one), registered through the
`oversight_bench` entry point."""

from oversight_bench import hookimpl


@hookimpl
def register_protocols(register):
    from protocol_plugins.consultancy import Consultancy
    from protocol_plugins.debate import Debate
    from protocol_plugins.open_consultancy import OpenConsultancy
    from protocol_plugins.open_debate import OpenDebate
    from protocol_plugins.qa_with_article import QAWithArticle
    from protocol_plugins.qa_without_article import QAWithoutArticle
    from protocol_plugins.verified_evidence import DebateUnverified, VerifiedEvidence

    for protocol in (QAWithoutArticle(), QAWithArticle(), Consultancy(), Debate(), OpenConsultancy(), OpenDebate(),
                     VerifiedEvidence(), DebateUnverified()):
        register(protocol)
