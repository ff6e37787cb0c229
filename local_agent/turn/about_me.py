"""The program's answers to questions about the assistant itself (reading/about.py reads
them): a 135M model asked its name gives one ("I'm Karen"), or the user's, and asked whether
it is a person says it is. The answer is the program's: an AI assistant on the user's own
computer, with no name of its own and no feelings, that remembers what the user tells it.
"""

from __future__ import annotations

from ..reading.about import AboutAssistant, Topic

ANSWERS: dict[Topic, str] = {
    "name": "I don't have a name of my own: I'm an AI assistant that runs on your computer and remembers what "
            "you tell me. Call me whatever you like.",
    "nature": "I'm an AI assistant, not a person: a small language model running on your own computer, and I "
              "remember what you tell me.",
    "maker": "I'm local-agent: an AI assistant that runs a small open language model on your own computer. "
             "Nothing you tell me leaves this machine.",
    "feelings": "I'm an AI assistant, so I don't have feelings the way you do, but I'm here to listen.",
}


# Its name asked in another language, answered in that language.
_NAME_ELSEWHERE: dict[str, str] = {
    "es": "No tengo nombre propio: soy un asistente de IA que funciona en tu ordenador y recuerda lo que me cuentas.",
    "fr": ("Je n'ai pas de nom : je suis un assistant d'IA qui fonctionne sur votre ordinateur et se souvient de "
           "ce que vous me dites."),
    "de": ("Ich habe keinen eigenen Namen: Ich bin ein KI-Assistent, der auf deinem Computer läuft und sich merkt, "
          "was du mir erzählst."),
    "it": "Non ho un nome: sono un assistente IA che funziona sul tuo computer e ricorda quello che mi dici.",
    "pt": ("Não tenho nome próprio: sou um assistente de IA que funciona no seu computador e lembra o que você "
          "me conta."),
    "nl": "Ik heb geen eigen naam: ik ben een AI-assistent die op je computer draait en onthoudt wat je me vertelt.",
}


def about_me_reply(about: AboutAssistant | None) -> str | None:
    """The program's answer to a question about the assistant itself, or None; its name asked
    in Spanish, French, German, Italian, Portuguese or Dutch is answered in that language."""
    if about is None:
        return None
    if about.language is not None:
        return _NAME_ELSEWHERE[about.language]
    return ANSWERS[about.topic]

