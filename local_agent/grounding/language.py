"""The language of a short text, told by its stopwords: enough to see that an answer to an
English message came back in Portuguese.

Definition: each language's score is the number of the text's words (lower case) in that
language's list of frequent function words below; the language with the highest score is the
text's language when the score is at least 2 (1 for a text of three words or fewer) and no
other language ties it. Otherwise the language is unknown (None): "ok", "Rex!", "thx".
"""

from __future__ import annotations

import re

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset("""the and is are was were you your i i'm my me we our it it's this that to of in for
        with on at be have has do does not what how can will would hello hi thanks thank please
        yes no there here he she they them his her an a good great nice just so""".split()),
    "fr": frozenset("""le la les et est sont je tu vous il elle nous ils une des du au aux pour avec dans
        sur pas ne que qui mon ma mes ton ta votre vos ce cette c'est suis bonjour merci oui non
        très bien j'habite je m'appelle comme de me""".split()),
    "es": frozenset("""el la los las y es son tú usted él ella nosotros una unos unas del al para con
        en por no que qué mi mis tu tus su este esta estoy soy hola gracias sí muy bien cómo me
        llamo vivo de""".split()),
    "pt": frozenset("""o os as e é são eu você ele ela nós um uma uns umas do da dos das no na nos nas
        para com em por não que meu minha seu sua este esta estou sou olá obrigado obrigada sim
        muito bem moro trabalho como de""".split()),
    "de": frozenset("""der die das und ist sind ich du sie er wir ein eine einen dem den des zu mit in
        auf nicht was wie mein meine dein deine ihr ihre bin hallo danke ja nein sehr gut guten
        auch habe hast""".split()),
    "it": frozenset("""il lo la gli le e è sono io tu lei lui noi un una uno del della dei per con in su
        non che mio mia tuo tua questo questa ciao grazie sì molto bene come stai sto""".split()),
    "nl": frozenset("""de het een en is zijn ik jij je u hij zij wij van voor met in op niet wat hoe mijn
        jouw dit dat hallo dank bedankt ja nee heel goed ben""".split()),
}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def language_of(text: str) -> str | None:
    """The language code of `text` ("en", "fr", "es", "pt", "de", "it", "nl"), or None."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return None
    scores = sorted(((sum(w in stop for w in words), code) for code, stop in STOPWORDS.items()), reverse=True)
    (best, code), (second, _) = scores[0], scores[1]
    needed = 1 if len(words) <= 3 else 2
    return code if best >= needed and best > second else None


def same_language(reply: str, user_language: str | None) -> bool:
    """Whether `reply` is in `user_language` (a reply whose language is unknown passes; an
    unknown user language counts as English)."""
    theirs = language_of(reply)
    return theirs is None or theirs == (user_language or "en")
