"""Small multilingual pair data written for stviz's tests (illustrative; not from any corpus).

Per language, 20 pairs of an informal or rude sentence and a formal or polite rewrite of it:
English and French (Latin script), Russian (Cyrillic), Chinese (Han, no spaces between words) and
Arabic (right to left). :func:`pairs_frame` lays them out as an upload would (source, output,
system, a second reference), so every view and command can read them.
"""

from __future__ import annotations

import pandas as pd

PAIRS = {
    "en": [
        ("gonna be late again, sorry guys", "I will be late again; I apologise."),
        ("this movie was total garbage", "I did not enjoy this film at all."),
        ("dude, where's my phone?", "Excuse me, have you seen my phone?"),
        ("shut up and listen to me", "Please be quiet and listen to me."),
        ("the food here is awful lol", "The food at this restaurant is not good."),
        ("can u send me the file asap", "Could you send me the file as soon as possible?"),
        ("ur idea is dumb", "I am not convinced by your idea."),
        ("i dunno what he wants", "I do not know what he wants."),
        ("stop whining about the weather", "Please stop complaining about the weather."),
        ("that guy is such an idiot", "That man made a poor decision."),
        ("wanna grab a coffee later?", "Would you like to have a coffee later?"),
        ("the service was crap", "The service was disappointing."),
        ("no way i'm paying for that", "I am not willing to pay for that."),
        ("get outta my way", "Please let me pass."),
        ("this app sucks so bad", "This application does not work well."),
        ("my boss is a jerk", "My manager is difficult to work with."),
        ("yeah whatever, do what u want", "Very well, you may do as you wish."),
        ("the hotel room was filthy", "The hotel room was not clean."),
        ("thx for nothing", "Thank you, although it did not help."),
        ("this meeting is a waste of time", "I do not think this meeting is useful."),
    ],
    "fr": [
        ("t'es grave en retard, mec", "Vous êtes très en retard, monsieur."),
        ("ce film était nul à chier", "Ce film ne m'a pas plu du tout."),
        ("file-moi ton numéro", "Pourriez-vous me donner votre numéro de téléphone ?"),
        ("tais-toi et écoute", "Je vous prie de vous taire et d'écouter."),
        ("la bouffe ici est dégueulasse", "La nourriture de ce restaurant n'est pas bonne."),
        ("j'sais pas ce qu'il veut", "Je ne sais pas ce qu'il souhaite."),
        ("ton idée est débile", "Je ne suis pas convaincu par votre idée."),
        ("arrête de râler pour rien", "Cessez de vous plaindre sans raison, je vous prie."),
        ("ce type est un vrai crétin", "Cet homme a pris une mauvaise décision."),
        ("on se prend un café tout à l'heure ?", "Voulez-vous prendre un café plus tard ?"),
        ("le service était pourri", "Le service était décevant."),
        ("pas question que je paie ça", "Je ne suis pas disposé à payer cela."),
        ("dégage de là", "Laissez-moi passer, s'il vous plaît."),
        ("cette appli est vraiment merdique", "Cette application ne fonctionne pas bien."),
        ("mon chef est un abruti", "Mon responsable est difficile à vivre."),
        ("ouais bon, fais ce que tu veux", "Très bien, faites comme vous le souhaitez."),
        ("la chambre d'hôtel était crade", "La chambre d'hôtel n'était pas propre."),
        ("merci pour rien", "Merci, même si cela ne m'a pas aidé."),
        ("cette réunion sert à rien", "Je ne pense pas que cette réunion soit utile."),
        ("il pleut encore, c'est chiant", "Il pleut de nouveau, c'est regrettable."),
    ],
    "ru": [
        ("ты опять опоздал, придурок", "Ты опять опоздал."),
        ("этот фильм полный отстой", "Этот фильм мне совсем не понравился."),
        ("заткнись и слушай меня", "Пожалуйста, помолчи и послушай меня."),
        ("еда тут просто мерзкая", "Еда в этом ресторане невкусная."),
        ("скинь мне файл быстро", "Пришлите мне, пожалуйста, файл как можно скорее."),
        ("твоя идея тупая", "Ваша идея меня не убедила."),
        ("хрен знает, чего он хочет", "Я не знаю, чего он хочет."),
        ("хватит ныть про погоду", "Перестань жаловаться на погоду."),
        ("этот мужик полный идиот", "Этот человек принял неудачное решение."),
        ("го попьём кофе потом?", "Не хотите ли выпить кофе позже?"),
        ("обслуживание было паршивое", "Обслуживание нас разочаровало."),
        ("фиг я за это заплачу", "Я не готов за это платить."),
        ("свали с дороги", "Пожалуйста, дайте пройти."),
        ("это приложение дико глючит", "Это приложение работает плохо."),
        ("мой начальник редкостный козёл", "С моим начальником трудно работать."),
        ("да пофиг, делай что хочешь", "Хорошо, поступайте как считаете нужным."),
        ("номер в отеле был грязный как свинарник", "Номер в отеле был не убран."),
        ("спасибо за ничего", "Спасибо, хотя это не помогло."),
        ("это собрание пустая трата времени", "Мне кажется, это собрание бесполезно."),
        ("опять дождь, достало уже", "Снова идёт дождь, это неприятно."),
    ],
    "zh": [
        ("你又迟到了，真烦人", "你又迟到了，请下次注意时间。"),
        ("这部电影简直是垃圾", "这部电影我一点也不喜欢。"),
        ("闭嘴，听我说", "请安静一下，听我说。"),
        ("这里的饭菜难吃死了", "这家餐厅的饭菜不太好吃。"),
        ("赶紧把文件发给我", "请尽快把文件发给我，谢谢。"),
        ("你的主意太蠢了", "我觉得你的主意还需要再考虑。"),
        ("鬼知道他想要什么", "我不知道他想要什么。"),
        ("别再抱怨天气了", "请不要再抱怨天气了。"),
        ("那家伙是个白痴", "那个人做了一个错误的决定。"),
        ("待会儿一起喝咖啡吧", "您稍后愿意一起喝杯咖啡吗？"),
        ("服务烂透了", "服务令人失望。"),
        ("我才不会为这个付钱", "我不愿意为此付款。"),
        ("给我滚开", "请让我过去。"),
        ("这个软件太垃圾了", "这个应用程序运行得不好。"),
        ("我老板是个混蛋", "我的上司很难相处。"),
        ("随便你，爱怎么样就怎么样", "好的，您可以按自己的意愿去做。"),
        ("酒店房间脏得要命", "酒店的房间不太干净。"),
        ("谢谢你什么都没帮上", "谢谢，不过这并没有帮到我。"),
        ("这个会议纯属浪费时间", "我认为这次会议没有什么用处。"),
        ("又下雨了，烦死了", "又下雨了，真遗憾。"),
    ],
    "ar": [
        ("تأخرت مرة ثانية يا غبي", "لقد تأخرت مرة أخرى."),
        ("هذا الفيلم تافه جدا", "لم يعجبني هذا الفيلم على الإطلاق."),
        ("اسكت واسمعني", "من فضلك اهدأ واستمع إلي."),
        ("الأكل هنا مقرف", "الطعام في هذا المطعم ليس جيدا."),
        ("ابعث لي الملف بسرعة", "أرجو أن ترسل لي الملف في أقرب وقت ممكن."),
        ("فكرتك سخيفة", "لست مقتنعا بفكرتك."),
        ("ما أدري وش يبي", "لا أعرف ماذا يريد."),
        ("بطل تتذمر من الجو", "أرجو أن تتوقف عن الشكوى من الطقس."),
        ("هذا الرجل أحمق تماما", "لقد اتخذ هذا الرجل قرارا سيئا."),
        ("نشرب قهوة بعدين؟", "هل تود أن نشرب القهوة لاحقا؟"),
        ("الخدمة كانت زفت", "كانت الخدمة مخيبة للآمال."),
        ("مستحيل أدفع على هذا", "لست مستعدا لدفع ثمن ذلك."),
        ("انقلع من طريقي", "اسمح لي بالمرور من فضلك."),
        ("هذا التطبيق خربان", "هذا التطبيق لا يعمل بشكل جيد."),
        ("مديري شخص حقير", "من الصعب العمل مع مديري."),
        ("خلاص سو اللي تبيه", "حسنا، يمكنك أن تفعل ما تشاء."),
        ("غرفة الفندق كانت وسخة", "لم تكن غرفة الفندق نظيفة."),
        ("شكرا على لا شيء", "شكرا لك، مع أن ذلك لم يساعدني."),
        ("هذا الاجتماع مضيعة للوقت", "لا أظن أن هذا الاجتماع مفيد."),
        ("رجع المطر، شي يقهر", "عاد المطر من جديد، وهذا أمر مزعج."),
    ],
}

#: Language code -> (sacrebleu tokeniser the cards choose, script).
EXPECTED = {"en": ("13a", "Latin"), "fr": ("13a", "Latin"), "ru": ("13a", "Cyrillic"), "zh": ("zh", "Han"),
            "ar": ("13a", "Arabic")}


def pairs_frame(language: str, systems: int = 2) -> pd.DataFrame:
    """The language's pairs as an upload: every input rewritten by ``systems`` systems, the polite form as reference.

    System A copies the reference; system B drops its last word, so the two differ on every measure.
    """
    rows = []
    for k, (source, polite) in enumerate(PAIRS[language]):
        for s in range(systems):
            output = polite if s == 0 else " ".join(polite.split()[:-1]) or polite[:-2]
            rows.append({"id": k, "text": source, "rewrite": output, "system": "AB"[s] if s < 2 else f"S{s}",
                         "reference": polite, "fluency_score": float((k + s) % 5 + 1)})
    return pd.DataFrame(rows)


def all_sentences() -> list[tuple[str, str]]:
    """Every sentence with its language: (code, text)."""
    return [(code, text) for code, pairs in PAIRS.items() for pair in pairs for text in pair]
