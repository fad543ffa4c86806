package apps

import (
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var vlcPlayer = &App{
	Name:  "vlc",
	Title: "VLC for Android: switching to video on a playlist being replaced",
	Description: `A harmful race AsyncClock found in VLCPlayer (thesis §4.5.5): when a ` +
		`track ends, the playback service moves to the next playlist item and, if it is a ` +
		`video, switches from the audio player to the video player without checking the item, ` +
		`which loading a new playlist has just nulled: NullPointerException. The end of a track ` +
		`is reported by libVLC's event thread, which posts onEndReached to the main thread; ` +
		`loadPlaylist (the user opens a playlist) clears the items on the main thread and a ` +
		`loader thread fills them in and posts onPlaylistLoaded. Nothing orders the player's ` +
		`post with the user's action. Harmless races by construction: the progress updates ` +
		`(delayed UI updates), the volume the progress bar reads and a phone call mutes (posted at ` +
		`the front of the queue), the played-tracks counter.`,
	Harmful: []Race{
		{A: "PlaybackService.onEndReached", B: "PlaybackService.loadPlaylist", Data: "playlist",
			Why:     "onEndReached dereferences the next item, which loadPlaylist nulled until the loader fills it in",
			Symptom: "NullPointerException: MediaItem[]"},
	},
	Harmless: []Race{
		{A: "PlaybackService.onVolumeChanged", B: "PlaybackService.updateProgress", Data: "volume",
			Why: "the progress bar shows the volume as it is"},
		{A: "PlaybackService.onAudioFocusLoss", B: "PlaybackService.onVolumeChanged", Data: "volume",
			Why: "a call mutes the player; a volume change after it unmutes, as the user asked"},
		{A: "PlaybackService.onEndReached", B: "PlaybackService.updateProgress", Data: "index",
			Why: "progress of the previous or the next track, corrected by the next update"},
		{A: "PlaybackService.onPlaylistLoaded", B: "PlaybackService.updateProgress", Data: "size",
			Why: "the item count shown is corrected by the next update"},
	},
	Main: runVLC,
}

const playlistSize = 6

// playbackService plays a playlist on the main thread (VLC's
// PlaybackService); it lives as long as the process.
type playbackService struct {
	shuffle.Object
	events   *shuffle.Looper // libVLC's event thread
	progress *shuffle.Message

	playlist shuffle.Ptr[shuffle.PtrArray[mediaItem]]
	index    shuffle.Int
	size     shuffle.Int
	video    shuffle.Bool
	volume   shuffle.Int
	played   shuffle.Int
}

type mediaItem struct {
	shuffle.Object
	isVideo  shuffle.Bool
	duration shuffle.Int
}

func runVLC(rt *shuffle.Runtime) {
	s := shuffle.New(rt, &playbackService{})
	s.events = rt.StartLooper("VlcEvents")
	list := shuffle.NewPtrArray[mediaItem](s, playlistSize)
	s.fill(list)
	s.playlist.Set(list)
	s.size.Set(playlistSize)
	s.volume.Set(50)
	s.play()
	s.progress = rt.Main().PostDelayed(s.updateProgress, time.Second)
	rt.AddActions(
		shuffle.Action{Name: "open playlist", Weight: 1, Do: func(w *shuffle.World) { w.Post(rt.Main(), s.loadPlaylist) }},
		shuffle.Action{Name: "volume", Weight: 3, Do: func(w *shuffle.World) { w.Post(rt.Main(), s.onVolumeChanged) }},
		shuffle.Action{Name: "skip", Weight: 2, Do: func(w *shuffle.World) { w.Post(rt.Main(), s.onSkip) }},
		shuffle.Action{Name: "phone call", Weight: 1, Do: func(w *shuffle.World) { w.Transact(s.audioFocusChanged) }},
	)
}

func (s *playbackService) fill(list *shuffle.PtrArray[mediaItem]) {
	rt := s.Runtime()
	for i := range list.Len() {
		item := shuffle.New(s, &mediaItem{})
		item.isVideo.Set(rt.Rand().IntN(3) == 0)
		item.duration.Set(2000 + rt.Rand().Int64N(8000))
		list.Set(i, item)
	}
}

// play starts the current item: libVLC reports its end on the event
// thread.
func (s *playbackService) play() {
	item := s.playlist.Use().Use(int(s.index.Get()))
	d := time.Duration(item.duration.Get()) * time.Millisecond
	s.events.PostDelayed(s.onPlayerEnd, d)
}

// onPlayerEnd is libVLC's MediaPlayerEndReached on the event thread.
func (s *playbackService) onPlayerEnd() {
	s.Runtime().Main().Post(s.onEndReached)
}

// onEndReached moves to the next item; switching to video uses it
// unchecked (the bug).
func (s *playbackService) onEndReached() {
	s.played.Add(1)
	s.next()
	item := s.playlist.Use().Use(int(s.index.Get())) // null while a new playlist loads
	if item.isVideo.Get() {
		s.video.Set(true)
	} else {
		s.video.Set(false)
	}
	s.play()
}

// loadPlaylist replaces the playlist: the items are cleared now and
// filled in by a loader thread.
func (s *playbackService) loadPlaylist() {
	list := s.playlist.Use()
	for i := range list.Len() {
		list.Set(i, nil)
	}
	s.Runtime().Go("PlaylistLoader", s.loadItems)
}

func (s *playbackService) loadItems() {
	rt := s.Runtime()
	rt.Sleep(time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(3*time.Millisecond)))
	rt.Main().Post(s.onPlaylistLoaded)
}

func (s *playbackService) onPlaylistLoaded() {
	list := s.playlist.Use()
	s.fill(list)
	s.size.Set(int64(list.Len()))
}

// audioFocusChanged is AudioManager's callback on a binder thread: losing
// the audio focus must pause playback before anything else runs, so it is
// posted at the front of the main queue.
func (s *playbackService) audioFocusChanged() {
	s.Runtime().Main().PostAtFront(s.onAudioFocusLoss)
}

func (s *playbackService) onAudioFocusLoss() {
	s.volume.Set(0)
}

func (s *playbackService) onVolumeChanged() {
	s.volume.Set((s.volume.Get() + 10) % 100)
}

func (s *playbackService) onSkip() {
	s.next()
}

// next moves to the next item, wrapping around at the end.
func (s *playbackService) next() {
	s.index.Add(1)
	if !s.index.Less(&s.size) {
		s.index.Set(0)
	}
}

func (s *playbackService) updateProgress() {
	s.index.Get()
	s.size.Get()
	s.volume.Get()
	s.progress = s.Runtime().Main().PostDelayed(s.updateProgress, time.Second)
}
