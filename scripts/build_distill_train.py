"""Write local_agent/data/distill_train.jsonl: the hand-made training set of the distill gate.

Each row is one clause a user might write, labelled `save` (a durable fact about the user, worth
remembering) or not, with the `kind` it was written as. Sentences are written here by hand or
filled into hand-written templates; nothing comes from an evaluation set.

    python scripts/build_distill_train.py [--output PATH]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "local_agent" / "data" / "distill_train.jsonl"

# -- slot fillers ----------------------------------------------------------------------------------
NAMES = ["Alex", "Maria", "Sam", "Priya", "Tom", "Keiko", "Omar", "Lena", "Diego", "Grace", "Ivan", "Zoe"]
CITIES = ["Chicago", "Lisbon", "Toronto", "a small town in Ohio", "Berlin", "Austin", "Manila", "Leeds",
          "the countryside", "Seoul", "Denver", "Nairobi", "a farm in Iowa", "New Jersey"]
JOBS = ["nurse", "software engineer", "teacher", "truck driver", "accountant", "chef", "dentist",
        "firefighter", "librarian", "mechanic", "graphic designer", "pharmacist", "plumber",
        "cashier", "police officer", "farmer", "lawyer", "waitress", "electrician", "vet"]
PLACES = ["a bank", "Walmart", "the post office", "a hospital", "a startup", "the library",
          "a car dealership", "a law firm", "a coffee shop", "the city council", "Google", "a bakery"]
ACTIVITIES = ["hiking", "painting", "playing chess", "gardening", "swimming", "baking bread",
              "playing video games", "knitting", "fishing", "reading mystery novels", "running",
              "rock climbing", "camping", "playing the piano", "photography", "yoga", "surfing",
              "watching horror movies", "cooking Thai food", "bird watching", "skateboarding"]
THINGS = ["pizza", "jazz", "country music", "spicy food", "coffee", "cats", "the beach", "winter",
          "sushi", "rainy days", "old cars", "comic books", "tea", "chocolate", "rap music",
          "football", "basketball", "the color purple", "Star Wars", "anime", "country living"]
PETS = ["a dog", "two cats", "a parrot", "a golden retriever", "three dogs", "a hamster",
        "a horse", "a rabbit", "a turtle", "an old cat", "a pit bull", "fish"]
FAMILY = ["two kids", "a daughter", "three brothers", "a twin sister", "four children",
          "a son in college", "a big family", "two grandkids", "a younger sister"]
SUBJECTS = ["math", "history", "chemistry", "computer science", "nursing", "biology", "law",
            "art history", "economics", "physics", "spanish", "engineering"]
LEADS = ["", "", "", "Lol, ", "Yes, ", "Well, ", "Oh, ", "Haha, ", "Actually, ", "Hi! ", "Cool. ",
         "Not really, ", "Yeah, ", "Nice. ", "Hello, ", "That's great. ", "Me too! "]
TAILS = ["", "", "", "", " What about you?", " Do you?", " How about you?", " What do you do?",
         " Do you have any pets?", " What do you like to do?"]

# -- durable self-disclosures ---------------------------------------------------------------------
POSITIVE_TEMPLATES = {
    "name": ["My name is {name}.", "I'm {name}, nice to meet you.", "You can call me {name}.",
             "My friends call me {name}.", "Please call me {name}.", "I go by {name}."],
    "home": ["I live in {city}.", "I moved to {city} last year.", "I'm based in {city}.",
             "I've lived in {city} my whole life.", "We live in {city} now.", "I grew up in {city}.",
             "I'm originally from {city}.", "I was born in {city}."],
    "job": ["I work as a {job}.", "I'm a {job}.", "I work at {place}.", "I've been a {job} for ten years.",
            "I am a {job} by trade.", "I work for {place} as a {job}.", "I just started a new job at {place}.",
            "I'm a retired {job}.", "My job is being a {job}.", "I used to be a {job}."],
    "likes": ["I love {activity}.", "I really enjoy {activity}.", "I like {thing}.", "I'm really into {activity}.",
              "I'm a huge fan of {thing}.", "{activity_cap} is my favorite thing to do.", "I love {thing}.",
              "In my free time I enjoy {activity}.", "I spend my weekends {activity}.", "I adore {thing}.",
              "My favorite food is {thing}.", "My hobby is {activity}.", "I prefer {thing} over everything."],
    "dislikes": ["I hate {thing}.", "I don't like {thing}.", "I can't stand {thing}.", "I do not enjoy {activity}.",
                 "I really dislike {activity}.", "I'm not a fan of {thing}.", "I never drink {thing}."],
    "pets": ["I have {pet}.", "I've got {pet}.", "I own {pet}.", "I adopted {pet} last year.",
             "My dog's name is Rex.", "My cat is named Luna.", "I rescued {pet} from a shelter."],
    "family": ["I have {family}.", "I'm a single mom of {family}.", "My wife is a {job}.",
               "My husband works at {place}.", "My parents live in {city}.", "I am married with {family}.",
               "My sister is a {job}.", "I'm divorced.", "I'm the oldest of five kids.", "I am engaged."],
    "study": ["I'm studying {subject} in college.", "I'm a {subject} major.", "I have a degree in {subject}.",
              "I graduated with a degree in {subject}.", "I'm in grad school for {subject}.",
              "I teach {subject} at a high school.", "I'm studying for the bar exam.",
              "My chemistry exam is next Tuesday.", "I'm taking the GRE in March.",
              "My thesis is due at the end of May.", "I have a big deadline on Friday for my thesis."],
}
POSITIVE_FIXED = [
    # dates, time, identity
    "My birthday is on June 3rd.", "I was born in 1990.", "I'm 42 years old.", "I just turned 30.",
    "My time zone is Pacific time.", "I'm in the Central European time zone.", "I'm left-handed.",
    "I'm allergic to peanuts.", "I'm a vegetarian.", "I am vegan.", "I'm diabetic.", "I have asthma.",
    "I'm lactose intolerant.", "I'm colorblind.", "I wear glasses.", "I'm six feet tall.",
    "I'm an introvert.", "I'm very shy around new people.", "I'm Catholic.", "I'm a Christian.",
    "I go to church every Sunday.", "I'm Jewish.", "I'm Korean American.", "I'm half Mexican.",
    "I'm Canadian.", "I speak three languages.", "I speak fluent Spanish.", "I'm learning Japanese.",
    # possessions, vehicles, home
    "I drive a red pickup truck.", "I own a Toyota Prius.", "I ride my motorcycle to work.",
    "I just bought my first house.", "I rent a small apartment downtown.", "I don't own a car.",
    "I have a vintage guitar collection.", "I collect stamps.", "I own a bakery.",
    # health and habits
    "I run five miles every morning.", "I go to the gym every day.", "I don't drink alcohol.",
    "I quit smoking two years ago.", "I've been sober for three years.", "I have a bad back.",
    "I broke my leg skiing as a kid and it still hurts.", "I'm recovering from knee surgery.",
    "I wake up at 5 every morning.", "I work night shifts.", "I work from home.", "I never eat meat.",
    "I sleep only four hours a night.", "I meditate every evening.",
    # groups, volunteering, projects
    "I'm a member of a hiking club.", "I volunteer at the animal shelter on weekends.",
    "I sing in the church choir.", "I play bass in a band.", "I coach my son's soccer team.",
    "I'm on the swim team.", "I'm part of a book club.", "I'm in the army.", "I'm a veteran.",
    "I'm writing a novel.", "I'm building an app for local farmers.", "I'm training for a marathon.",
    "I'm saving up for a trip to Japan.", "I'm renovating my kitchen.", "I'm working on my PhD.",
    # favourites and tastes
    "My favorite season is fall.", "My favorite band is Queen.", "My favorite book is Dune.",
    "My favorite show is The Office.", "My favorite sport is hockey.", "My favorite color is green.",
    "I'm a big Yankees fan.", "I listen to classical music while I work.", "I watch a lot of documentaries.",
    "I read a book every week.", "I play tennis on Saturdays.", "I love to cook for my family.",
    "I enjoy going to the movies alone.", "I prefer tea to coffee.", "Summer is my favorite season.",
    "I hate the cold.", "I'm scared of heights.", "I'm afraid of spiders.", "I hate driving in traffic.",
    "I don't like reading.", "I dislike crowds.", "I can't stand country music.", "I'm terrible at math.",
    "I'm good at fixing cars.", "I'm really good at drawing.",
    # wants and goals (durable ones)
    "I want to be a doctor someday.", "I hope to become a pilot.", "I don't want kids.",
    "I never want to get married.", "I plan to retire in Florida.", "My dream is to open a restaurant.",
    "I want to learn to play the violin.",
    # family detail
    "My mom passed away last year.", "My dad was a firefighter.", "My kids are in high school.",
    "My brother and I are very close.", "I'm an only child.", "I live with my grandmother.",
    "My husband and I have been married for 20 years.", "My girlfriend is a nurse.",
    "We have three kids and a dog.", "My son just started college.",
    # life events and circumstances that stay true
    "I broke my wrist last year and it never healed right.", "My husband has diabetes.",
    "My wife is fighting breast cancer.", "I lost my job in March and I'm still looking.",
    "I was in the navy for six years.", "I grew up on a dairy farm.", "I've never been on a plane.",
    "I was adopted when I was two.", "My parents divorced when I was little.",
    "I have a scar on my arm from a dog bite.",
    "I survived a house fire as a kid.", "I went to college in Boston.", "I dropped out of high school.",
    "I have a tiny house in the woods.", "I have a boat that I take out on the lake.", "We have a cabin up north.",
    "I have a motorcycle I built myself.", "My car is an old Honda Civic.", "I just got my driver's license.",
    "I'm deaf in one ear.", "I have two cochlear implants.", "I use a wheelchair.", "I have chronic migraines.",
    "I can't eat gluten.", "I gave up sugar last year.", "I only eat organic food.", "I drink way too much coffee.",
    "I'm Irish on my mom's side.", "My family is from Vietnam.", "I'm a first generation immigrant.",
    "Our family has a bakery.", "My grandpa taught me to fish.", "My daughter plays the violin.",
    "My son has autism.", "I take care of my elderly father.", "I'm expecting my first baby in June.",
    "I do karate, I have a black belt.", "I knit sweaters for my grandkids.", "I race mountain bikes.",
    "I sing karaoke every Friday.", "I build model trains.", "I play in a local softball league.",
    "I watch every Marvel movie the day it comes out.", "I've read every Stephen King book.",
    "I binge watch cooking shows.", "I listen to podcasts on my commute.", "I never miss a Packers game.",
    "Fall is the best time of year for me.", "Nothing beats a cold winter morning for me.",
    "Red wine is my drink of choice.", "Soda is disgusting to me.", "I can't stand the taste of beer.",
    "Math was always my worst subject.", "Chemistry class bored me to tears.", "History is my thing.",
    "I want to be a vet when I grow up.", "I'm not planning on having children.", "I'd never live in a big city.",
    "I'm a stay at home dad.", "I'm a part time barista and full time student.", "I clean houses for a living.",
    "I drive for Uber on weekends.", "I just got promoted to manager.", "I'm between jobs right now.",
    "I retired from teaching last year.", "I'm a nurse on the night shift.", "Mostly I work at the hardware store.",
    "I belong to a motorcycle club.", "I'm on the board of our local library.", "I'm a Girl Scout leader.",
    "I'm in a band with my brothers.", "We go to a Baptist church.", "I'm a proud union member.",
    "my favorite author is jane austen", "i love country music and line dancing", "i own three horses",
    "i have a pet snake named noodle", "i am a vegetarian and i love cooking", "i hate the winter time",
    "i am a mechanic at a ford dealership", "i work as a janitor at a school", "i like to go hunting with my dad",
    # longer mixed messages
    "Hello! My name is {name}, but you can call me {short}. I'm studying for the CFA exam in 2025.",
    "Hi, I'm {name}. I'm a {job} and I live in {city}.",
    "I'm doing well, thanks. I just got home from my shift at the hospital, I'm a nurse.",
    "Not much, just relaxing. I work long hours as a {job} so weekends are precious.",
]
# -- not durable about the user -----------------------------------------------------------------
REACTIONS = [
    "Thanks! I'll let you know how it goes.", "I'm so happy for you!", "I totally agree with you.",
    "I can't wait to see it!", "I love that!", "I think so too.", "I hope you have a great day!",
    "I'm glad you enjoyed it.", "I'm sorry to hear that.", "I see what you mean.", "I know, right?",
    "I was just thinking about that.", "I'll try that next time.", "I'm proud of you!",
    "I can imagine how hard that was.", "I appreciate the support.", "I'll keep that in mind.",
    "I bet that was fun!", "I guess you're right.", "I hear you.", "I understand.", "I agree.",
    "I'm sure it'll be great.", "I wish I could have been there.", "I'd love to see a picture!",
    "I really appreciate you saying that.", "I feel the same way.", "I'm curious what you think.",
    "I couldn't agree more.", "I love your idea!", "I like the way you think.", "I'm impressed!",
    "I have to go now, talk later.", "I gotta run.", "I'm back!", "I'm here if you need anything.",
    "I don't know.", "I'm not sure about that.", "I was wondering the same thing.",
    "I hope everything works out for you.", "I'll think about it.", "I'm excited for you!",
    "I had no idea!", "I didn't know that.", "I remember that day.", "I thought you'd like that.",
    "I love hearing about your adventures.", "I'm glad we talked.", "I'll be there!",
    "I'm happy to help.", "I'd be happy to.", "I think that's a great plan.", "I totally get it.",
    "I'm rooting for you!", "I can tell you care a lot about it.", "I like it a lot.",
    "I'm so sorry for your loss.", "I'm glad it worked out.", "I feel you.", "I'm speechless.",
    "I'll send you the photos later.", "I just wanted to say thanks.", "I'm looking forward to it!",
    "Thanks so much, I really needed that.", "I know what you mean, it's tough.",
    "I've heard great things about that place.", "I saw that movie too!", "I love that for you.",
    "I'm really proud of myself for taking that step.", "I'm so grateful for friends like you.",
    "Wow, I had a blast at the party!", "I tried it and it was amazing.", "I'll check it out.",
    "I have been meaning to ask you about that.", "I can relate to that.", "I'm honored.",
    "Wow, I'm so proud of you for chasing your dreams!", "Thanks! I'm really lucky to have such good friends.",
    "That's so sweet, I'm touched.", "I'm blown away by your talent!", "I totally understand how you feel.",
    "I'm always here for you, you know that.", "I appreciate you listening to me.", "I'll keep my fingers crossed!",
    "I really hope it goes well for you.", "I'm glad you're taking care of yourself.",
    "I had a feeling you'd say that.",
    "I'm sure your family is proud of you.", "I love how passionate you are.", "I admire your courage.",
    "I'm so happy things are looking up.", "I'd love to hear more about it sometime.", "I think that's so cool!",
    "I was thinking the same thing!", "I'm really glad I could help.", "I wish you the best of luck!",
    "I can see why you love it so much.", "I've been there too, it gets better.", "I know it's been a tough year.",
    "I'm grateful for our talks.", "I'm sorry, I didn't mean to upset you.", "I'm so excited to hear how it goes!",
    "I'm curious, what made you decide that?", "I get what you're saying.", "I'm happy you found your people.",
    "I love the photo you sent!", "I think you made the right call.", "I'm so touched you remembered.",
    "I'll definitely check out that book.", "I'll let you know what I think of it.", "I'll be cheering you on.",
    "Thanks, I'll give it a try this weekend.", "I'm inspired by your story.", "I feel lucky to know you.",
]
TRANSIENT = [
    "I'm tired today.", "I'm hungry right now.", "I just got back from the store.", "I'm at the mall.",
    "I'm heading out now.", "I had pizza for lunch.", "I have a headache.", "I'm bored.",
    "I went to the park yesterday.", "I'm running late.", "I'm watching TV right now.",
    "I just woke up.", "I'm making dinner.", "I'm stuck in traffic.", "I had a long day at work.",
    "I'm so busy this week.", "I'm feeling a bit sick today.", "I forgot my umbrella.",
    "I'm on my way home.", "I just finished my coffee.", "I got a haircut today.",
    "I'm waiting for the bus.", "I lost my keys again.", "I'm cleaning the house today.",
    "I ate too much at dinner.", "I had a nice walk this morning.", "I'm doing great, thanks!",
    "I'm good, how are you?", "I'm fine.", "I slept late this morning.", "I'm excited for tonight.",
    "I'm nervous about tomorrow.", "I'm having a great time.", "I just sent you the file.",
    "I went shopping with my sister yesterday.", "I saw a cool bird today.", "I'm in a good mood.",
    "I went to a great concert last night.", "I just got back from a run.", "I had a crazy dream last night.",
    "I finally finished that puzzle.", "I baked cookies this afternoon.", "I'm taking a break from work today.",
    "I just had the best burger of my life.", "I spent the morning cleaning my garage.", "I'm so full right now.",
    "I got caught in the rain on the way home.", "I just watched the new episode.", "I'm about to go to bed.",
    "I took my kids to the zoo last weekend.", "I painted the fence yesterday.", "I'm listening to the radio now.",
    "I had a great time at the lake this weekend.", "I visited my aunt last week.", "I'm so sleepy today.",
    "I just finished a long shift.", "I went for a walk with my dog this morning.", "I tried a new recipe tonight.",
]
TASK_CONTEXT = [
    "I need a recipe for dinner tonight.", "I want you to write a poem about the sea.",
    "I have a question about Python.", "I'm looking for a good book to read.",
    "I would like a summary of this article.", "I need help with my homework.",
    "I need an email to my landlord about the broken heater.", "I'd like you to translate this into French.",
    "I need a catchy name for a bakery.", "I want to know how to bake bread.",
    "I need ideas for a birthday party.", "I am trying to decide between these two laptops.",
    "I want a list of ten fun facts about space.", "I need to write a cover letter.",
    "I'm trying to understand how vaccines work.", "I was wondering how tall Mount Everest is.",
    "I need a workout plan for beginners.", "I want to plan a trip to Italy, what should I see?",
    "I have to give a presentation tomorrow, can you help me outline it?",
    "I got this error when I ran the code.", "I have a list of numbers and need the average.",
]
REQUESTS = [
    "Write a short story about a dragon.", "Can you summarize this paragraph?",
    "Please translate 'good morning' into German.", "What's the capital of Peru?",
    "Give me three tips for better sleep.", "How do I make pancakes?", "Tell me a joke.",
    "Explain quantum computing in simple terms.", "List five healthy snacks.",
    "Could you check my grammar in this sentence?", "Suggest a name for my new puppy.",
    "Convert 30 degrees Celsius to Fahrenheit.", "What should I cook tonight?",
    "Rewrite this email to sound more polite.", "Generate a packing list for a beach trip.",
    "Classify these animals as mammals or reptiles.", "Make a grocery list for the week.",
    "Find the bug in this code.", "Help me plan my week.", "Recommend a good podcast about history.",
    "Is it going to rain tomorrow?", "What do you think about electric cars?",
    "How are you today?", "What's your favorite movie?", "Do you have any hobbies?",
    "Where do you live?", "Have you ever been to Paris?", "Why is the sky blue?",
    "Remind me to call the dentist.", "Sort these words alphabetically.",
    "Draft a tweet announcing our new product.", "Create a quiz about world capitals.",
]
OTHERS = [
    "What does Caroline like to do on weekends?", "When did Melanie go camping?",
    "My friend loves hiking.", "She works at a hospital.", "John moved to Boston last year.",
    "Her brother plays the guitar.", "My neighbor just got a new dog.", "Tom is a great cook.",
    "My coworker is obsessed with golf.", "They live in a big house.", "He hates spicy food.",
    "My friend's sister is getting married.", "Joanna has two cats.", "The new teacher is from Spain.",
    "How long has Nate been playing video games?", "What instrument does Evan play?",
    "My roommate is a vegetarian.", "Our boss is on vacation.", "His birthday is next week.",
    "What did Gina buy at the market?", "Why did Jon quit his job?",
]

# Templated passing remarks: a reaction to the other speaker, or a one-off event.
REACTION_PARTS = (
    ["Wow", "Aww", "That's amazing", "Thanks", "Thank you so much", "Oh no", "Congrats", "Haha", "Yeah",
     "That sounds fun", "Good luck", "So cool", "Totally"],
    ["I'm so glad {you}", "I'm really happy {you}", "I'm sorry {you}", "I'm thrilled {you}", "I'm relieved {you}",
     "I'm excited {you}", "I'm proud {you}", "I'm sure {you}", "I think {you}", "I hope {you}",
     "I can't believe {you}", "I'm impressed {you}"],
    ["you had a good time", "you liked it", "it worked out", "you made it", "you're feeling better",
     "you found something you love", "you got the job", "things are going well", "you'll do great",
     "you enjoyed the trip", "everything went okay", "you took that step"],
)
EVENT_PARTS = (
    ["I went to", "I visited", "I tried", "I watched", "I finished", "I cooked", "I bought", "I found",
     "I cleaned", "I checked out", "I started"],
    ["the farmers market", "a new restaurant", "a movie", "the museum", "a concert", "a new recipe",
     "the park", "a yoga class", "my old photos", "a new book", "the beach"],
    ["yesterday", "last night", "this morning", "today", "last weekend", "earlier", "a few days ago"],
)


def reaction(rng: random.Random) -> str:
    opener, feeling, what = (rng.choice(part) for part in REACTION_PARTS)
    return f"{opener}! {feeling.format(you=what)}."


def event(rng: random.Random) -> str:
    did, what, when = (rng.choice(part) for part in EVENT_PARTS)
    return f"{did} {what} {when}."


def fill(template: str, rng: random.Random) -> str:
    activity = rng.choice(ACTIVITIES)
    name = rng.choice(NAMES)
    return template.format(
        name=name, short=name[:3], city=rng.choice(CITIES), job=rng.choice(JOBS), place=rng.choice(PLACES),
        activity=activity, activity_cap=activity[:1].upper() + activity[1:], thing=rng.choice(THINGS),
        pet=rng.choice(PETS), family=rng.choice(FAMILY), subject=rng.choice(SUBJECTS),
    )


def decorate(text: str, rng: random.Random) -> str:
    """Chat-like variation: a lead-in, a question back, or all lowercase."""
    lead = rng.choice(LEADS)
    if lead:
        text = lead + text[:1].lower() + text[1:] if not text.startswith("I ") else lead + text
    text += rng.choice(TAILS)
    return text.lower() if rng.random() < 0.2 else text


def rows(rng: random.Random) -> list[dict]:
    out = []
    for kind, templates in POSITIVE_TEMPLATES.items():
        for template in templates:
            for _ in range(3 if "{" in template else 1):
                out.append({"text": decorate(fill(template, rng), rng), "save": True, "kind": kind})
    for sentence in POSITIVE_FIXED:
        out.append({"text": decorate(fill(sentence, rng), rng), "save": True, "kind": "fact"})
    for kind, sentences in [("reaction", REACTIONS), ("transient", TRANSIENT), ("task", TASK_CONTEXT),
                            ("request", REQUESTS), ("others", OTHERS)]:
        for sentence in sentences:
            out.append({"text": decorate(sentence, rng) if kind in {"reaction", "transient"} else sentence,
                        "save": False, "kind": kind})
    out += [{"text": decorate(reaction(rng), rng), "save": False, "kind": "reaction"} for _ in range(80)]
    out += [{"text": decorate(event(rng), rng), "save": False, "kind": "transient"} for _ in range(50)]
    unique = {row["text"]: row for row in out}
    return list(unique.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    data = rows(random.Random(args.seed))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with args.output.open("w", encoding="utf-8") as handle:
        for row in data:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    positives = sum(row["save"] for row in data)
    print(f"wrote {len(data)} rows ({positives} save, {len(data) - positives} not) to {args.output}")


if __name__ == "__main__":
    main()
